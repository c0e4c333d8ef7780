/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sysfs.c: the sysfs readers (preload/pmu.c, preload/pmu_catalog.c)
 * on fuzzed file names and contents. Each input becomes a small sysfs tree
 * in a temporary directory: one PMU with a type file, two format/ terms and
 * one events/ alias with its .scale and .unit, beside a fixed `software`
 * PMU. Input fields (cut at NUL bytes):
 *
 *   0 PMU name      1 type         2 term name   3 its format
 *   4 term name     5 its format   6 alias name  7 its terms
 *   8 alias .scale  9 alias .unit  10 event text parsed against the tree
 *
 * A name the file system cannot hold (empty, "." or "..", a '/', too long)
 * is replaced by a fixed one. The tree is read by every public reader, and
 * the format of field 3 also goes through pmu_format_parse() directly, with
 * one property checked: a value deposited through a format reads back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/events/events.h"
#include "preload/events/pfm.h"
#include "preload/events/pmu.h"
#include "preload/events/pmu_catalog.h"
#include "tests/fuzz/fuzz.h"

static char root[256];

static void tree_remove(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	char sub[4096];

	if (!dir) {
		unlink(path);
		return;
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		tree_remove(sub);
	}
	closedir(dir);
	rmdir(path);
}

static void file_write(const char *dir, const char *name, const char *suffix,
		       const char *text)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;		/* e.g. the alias is named like a format term */
	if (write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
}

/* @name when the file system can hold it as one path component, else @fallback. */
static const char *fs_name(const char *name, const char *fallback)
{
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/') ||
	    strlen(name) > 200)
		return fallback;
	return name;
}

static void root_remove(void)
{
	tree_remove(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/pfshim-fuzz-sysfs.XXXXXX",
		 tmp ? tmp : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(root))
		abort();
	atexit(root_remove);	/* libFuzzer's -max_total_time ends with exit() */
	return 0;
}

static void noop_warn(void *ctx, const char *message)
{
	(void)ctx;
	if (!message[0])
		abort();
}

static void check_format(const char *text)
{
	struct pmu_format fmt;
	struct perf_event_attr attr;
	uint64_t value = 0x5a5a5a5a5a5a5a5aULL, back = 0, *field;
	int width;

	if (pmu_format_parse(text, &fmt) != 0)
		return;
	width = pmu_format_width(&fmt);
	if (width < 1 || width > 64 || strnlen(fmt.spec, sizeof(fmt.spec)) >= sizeof(fmt.spec))
		abort();
	if (width < 64)
		value &= (1ULL << width) - 1;
	memset(&attr, 0xff, sizeof(attr));
	if (pmu_format_deposit(&fmt, value, &attr) != 0)
		abort();
	field = fmt.field == PMU_FIELD_CONFIG1 ? (uint64_t *)&attr.config1 :
		fmt.field == PMU_FIELD_CONFIG2 ? (uint64_t *)&attr.config2 :
		(uint64_t *)&attr.config;
	for (int bit = 63; bit >= 0; bit--)
		if (fmt.mask & (1ULL << bit))
			back = back << 1 | ((*field >> bit) & 1);
	if (back != value || (*field | fmt.mask) != ~0ULL)
		abort();
	if (width < 64 && pmu_format_deposit(&fmt, 1ULL << width, &attr) != -ERANGE)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pmu_desc desc;
	static struct event_list list;
	struct pmu_catalog cat;
	struct fuzz_fields f;
	const struct pmu_format *fmt;
	const char *pmu, *term_a, *term_b, *alias;
	char dir[4096], *pmu_arg, *alias_arg, *terms;
	double scale = 1.0;
	char unit[16] = "";
	uint32_t type;

	fuzz_split(data, size, 11, &f);
	pmu = fs_name(f.field[0], "cpu");
	term_a = fs_name(f.field[2], "event");
	term_b = fs_name(f.field[4], "umask");
	alias = fs_name(f.field[6], "cycles");

	check_format(f.field[3]);

	/* The tree. */
	snprintf(dir, sizeof(dir), "%s/software", root);
	mkdir(dir, 0755);
	file_write(dir, "type", "", "1\n");
	snprintf(dir, sizeof(dir), "%s/%s", root, pmu);
	mkdir(dir, 0755);
	file_write(dir, "type", "", f.field[1]);
	snprintf(dir, sizeof(dir), "%s/%s/format", root, pmu);
	mkdir(dir, 0755);
	file_write(dir, term_a, "", f.field[3]);
	file_write(dir, term_b, "", f.field[5]);
	snprintf(dir, sizeof(dir), "%s/%s/events", root, pmu);
	mkdir(dir, 0755);
	file_write(dir, alias, "", f.field[7]);
	file_write(dir, alias, ".scale", f.field[8]);
	file_write(dir, alias, ".unit", f.field[9]);

	/* Every reader, with exact-size copies of the names. */
	pmu_arg = fuzz_exact(pmu);
	alias_arg = fuzz_exact(alias);
	pmu_name_valid(pmu_arg);
	pmu_type_read(root, pmu_arg, &type);
	if (pmu_desc_load(root, pmu_arg, &desc) == 0) {
		if (desc.nr_formats < 0 || desc.nr_formats > PMU_FORMATS_MAX)
			abort();
		if (pmu_desc_format(&desc, term_a, &fmt) == 0)
			check_format(fmt->spec);
		pmu_desc_format(&desc, term_b, &fmt);
	}
	for (size_t sz = 1; sz <= 256; sz *= 16) {
		terms = malloc(sz);
		if (!terms)
			abort();
		if (pmu_alias_read(root, pmu_arg, alias_arg, terms, sz) == 0 &&
		    strnlen(terms, sz) >= sz)
			abort();
		free(terms);
	}
	pmu_alias_display(root, pmu_arg, alias_arg, &scale, unit, sizeof(unit));
	if (!(scale > 0) || strnlen(unit, sizeof(unit)) >= sizeof(unit))
		abort();

	memset(&cat, 0, sizeof(cat));
	pmu_catalog_load(&cat, root);
	pmu_catalog_find(&cat, alias_arg);
	pmu_catalog_has_alias(&cat, pmu_arg, alias_arg);
	pmu_catalog_has_pmu(&cat, pmu_arg);
	pmu_catalog_free(&cat);

	pfm_library = NULL;	/* not ours to fuzz, and milliseconds per load (fuzz_events.c) */
	events_parse(f.field[10], root, "/nonexistent", &list, noop_warn, NULL);

	free(alias_arg);
	free(pmu_arg);
	snprintf(dir, sizeof(dir), "%s/%s", root, pmu);
	tree_remove(dir);
	fuzz_fields_free(&f);
	return 0;
}
