/* SPDX-License-Identifier: MIT */
/*
 * fastread/access.c: what this machine lets the read path take from user
 * space, as sysfs and procfs say: why user-space reads are off, in one
 * sentence (so a caller can report it instead of silently paying for
 * read(2)), and which PMUs take arm64's user-access bit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fastread/arch.h"
#include "fastread/internal.h"
#include "fastread/sysfile.h"

/* The small file @root@path into @buf, NUL-terminated. Return: its length, or -errno. */
static int file_read_small(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return sysfile_read(full, buf, size);
}

/* First byte of a small file under @root, or -errno. */
static __attribute__((unused)) int file_first_char(const char *root, const char *path)
{
	char c[16];
	int len = file_read_small(root, path, c, sizeof(c));

	if (len < 0)
		return len;
	return len >= 1 ? (unsigned char)c[0] : -EIO;
}

static bool path_exists(const char *root, const char *path)
{
	char full[512];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return access(full, F_OK) == 0;
}

bool fastread_pmu_takes_user_bit(uint32_t type, const char *devices)
{
	char path[320], buf[32];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW)
		return true;
	dir = opendir(devices);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/%s/type", d->d_name);
		if (file_read_small(devices, path, buf, sizeof(buf)) < 0 ||
		    strtoul(buf, NULL, 10) != type)
			continue;
		snprintf(path, sizeof(path), "/%s/format/rdpmc", d->d_name);
		found = path_exists(devices, path);
	}
	closedir(dir);
	return found;
}

/*
 * The architecture header says where user reads are switched on
 * (FASTREAD_ARCH_ACCESS_PMUS or FASTREAD_ARCH_ACCESS_SYSCTL); this file only
 * reads it.
 */
#if !FASTREAD_ARCH_USER_READ
const char *fastread_user_access_problem_at(const char *root)
{
	(void)root;
	return "user-space counter reads are not implemented for this architecture: "
	       "every read uses read(2)";
}
#elif defined(FASTREAD_ARCH_ACCESS_PMUS)
#define ACCESS_PMU(pmu)                                                               \
	{ pmu, "rdpmc is disabled (" FASTREAD_SYSFS_PMUS "/" pmu "/rdpmc is 0; as root: " \
	       "echo 1 > " FASTREAD_SYSFS_PMUS "/" pmu "/rdpmc)" },
static const struct {
	const char *pmu, *off;
} access_pmus[] = { FASTREAD_ARCH_ACCESS_PMUS(ACCESS_PMU) };

const char *fastread_user_access_problem_at(const char *root)
{
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(access_pmus) / sizeof(access_pmus[0]); i++) {
		snprintf(path, sizeof(path), FASTREAD_SYSFS_PMUS "/%s", access_pmus[i].pmu);
		if (!path_exists(root, path))
			continue;
		snprintf(path, sizeof(path), FASTREAD_SYSFS_PMUS "/%s/rdpmc", access_pmus[i].pmu);
		return file_first_char(root, path) == '0' ? access_pmus[i].off : NULL;
	}
	return "no hardware PMU (no " FASTREAD_SYSFS_PMUS "/cpu): "
	       "only software events, and those are read with read(2)";
}
#elif defined(FASTREAD_ARCH_ACCESS_SYSCTL)
const char *fastread_user_access_problem_at(const char *root)
{
	int c = file_first_char(root, FASTREAD_ARCH_ACCESS_SYSCTL);

	if (c == -ENOENT)
		return "this kernel has no " FASTREAD_ARCH_ACCESS_SYSCTL " (Linux < 5.17): "
		       "counters cannot be read from user space";
	if (c == '0')
		return FASTREAD_ARCH_ACCESS_SYSCTL " is 0: user-space counter reads are off "
		       "(as root: echo 1 > " FASTREAD_ARCH_ACCESS_SYSCTL ")";
	return NULL;
}
#else
#error "an architecture with user reads says where they are switched on"
#endif

const char *fastread_user_access_problem(void)
{
	return fastread_user_access_problem_at("");
}
