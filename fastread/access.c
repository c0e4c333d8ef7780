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

/* The small file @root@path into @buf, NUL-terminated. Return: its length, or -errno. */
static int file_read_small(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];
	ssize_t len;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -EIO;
	buf[len] = '\0';
	return (int)len;
}

/* First byte of a small file under @root, or -errno. */
static __attribute__((unused)) int file_first_char(const char *root, const char *path)
{
	char c[2];
	int len = file_read_small(root, path, c, sizeof(c));

	if (len < 0)
		return len;
	return len == 1 ? (unsigned char)c[0] : -EIO;
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

#if !FASTREAD_ARCH_USER_READ
const char *fastread_user_access_problem_at(const char *root)
{
	(void)root;
	return "user-space counter reads are not implemented for this architecture: "
	       "every read uses read(2)";
}
#elif defined(__x86_64__)
/* Intel hybrid parts name their core PMUs cpu_core and cpu_atom. */
static const char *const x86_pmus[] = { "cpu", "cpu_core", "cpu_atom" };

const char *fastread_user_access_problem_at(const char *root)
{
	char path[128];
	size_t i;
	int c;

	for (i = 0; i < sizeof(x86_pmus) / sizeof(x86_pmus[0]); i++) {
		snprintf(path, sizeof(path), FASTREAD_SYSFS_PMUS "/%s", x86_pmus[i]);
		if (!path_exists(root, path))
			continue;
		/* rdpmc: 0 off, 1 while the mm has a mapped event, 2 always. */
		snprintf(path, sizeof(path), FASTREAD_SYSFS_PMUS "/%s/rdpmc", x86_pmus[i]);
		c = file_first_char(root, path);
		if (c == '0')
			return "rdpmc is disabled (" FASTREAD_SYSFS_PMUS "/cpu/rdpmc is 0; "
			       "as root: echo 1 > " FASTREAD_SYSFS_PMUS "/cpu/rdpmc)";
		return NULL;
	}
	return "no hardware PMU (no " FASTREAD_SYSFS_PMUS "/cpu): "
	       "only software events, and those are read with read(2)";
}
#elif defined(__aarch64__)
const char *fastread_user_access_problem_at(const char *root)
{
	int c = file_first_char(root, "/proc/sys/kernel/perf_user_access");

	if (c == -ENOENT)
		return "this kernel has no /proc/sys/kernel/perf_user_access (Linux < 5.17): "
		       "arm64 counters cannot be read from user space";
	if (c == '0')
		return "/proc/sys/kernel/perf_user_access is 0: user-space counter reads are off "
		       "(as root: echo 1 > /proc/sys/kernel/perf_user_access)";
	return NULL;
}
#endif

const char *fastread_user_access_problem(void)
{
	return fastread_user_access_problem_at("");
}
