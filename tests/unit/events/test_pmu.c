/* SPDX-License-Identifier: MIT */
/*
 * test_pmu.c: preload/events/pmu.c against the fake sysfs trees in tests/fixtures/sysfs/:
 * format bit placement (split ranges, single bits, config1/config2), type,
 * aliases with their .scale/.unit, and the directory walks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "preload/events/pmu.h"

static const char *fixtures(const char *tree)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", base ? base : "tests/fixtures/sysfs", tree);
	return path;
}

static void test_format_parse_ranges(void **state)
{
	struct pmu_format f;
	(void)state;

	assert_int_equal(pmu_format_parse("config:0-7", &f), 0);
	assert_int_equal(f.field, PMU_FIELD_CONFIG);
	assert_int_equal(f.mask, 0xffULL);
	assert_string_equal(f.spec, "config:0-7");

	assert_int_equal(pmu_format_parse("config:8-15,32-35", &f), 0);
	assert_int_equal(f.mask, 0xf0000ff00ULL);
	assert_int_equal(pmu_format_width(&f), 12);

	assert_int_equal(pmu_format_parse("config1:0", &f), 0);
	assert_int_equal(f.field, PMU_FIELD_CONFIG1);
	assert_int_equal(f.mask, 1);

	assert_int_equal(pmu_format_parse("config2:0-63", &f), 0);
	assert_int_equal(f.field, PMU_FIELD_CONFIG2);
	assert_int_equal(f.mask, UINT64_MAX);
	assert_int_equal(pmu_format_width(&f), 64);

	assert_int_equal(pmu_format_parse("config:18,23", &f), 0);
	assert_int_equal(f.mask, (1ULL << 18) | (1ULL << 23));
}

static void test_format_parse_malformed(void **state)
{
	static const char *bad[] = {
		"config:", "config:7-3", "config:64", "config:0-64", "foo:1", "config:1,",
		"config:a", "config1", "config:1-", "config:1 ", "config3:0", "",
	};
	struct pmu_format f;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = pmu_format_parse(bad[i], &f);

		if (err != -EINVAL)
			fail_msg("'%s' parsed (%d)", bad[i], err);
	}
}

static void test_deposit_split_range(void **state)
{
	struct perf_event_attr attr = { 0 };
	struct pmu_format f;
	(void)state;

	/* AMD: a 12-bit event, low 8 bits at 0-7, high 4 bits at 32-35. */
	assert_int_equal(pmu_format_parse("config:0-7,32-35", &f), 0);
	assert_int_equal(pmu_format_deposit(&f, 0x1ab, &attr), 0);
	assert_int_equal(attr.config, 0x1000000abULL);
	assert_int_equal(pmu_format_deposit(&f, 0xfff, &attr), 0);
	assert_int_equal(attr.config, 0xf000000ffULL);
	assert_int_equal(pmu_format_deposit(&f, 0x1000, &attr), -ERANGE);
	assert_int_equal(attr.config, 0xf000000ffULL);	/* untouched on error */
}

static void test_deposit_clears_and_keeps_other_bits(void **state)
{
	struct perf_event_attr attr = { .config = 0xff00, .config1 = 0x8 };
	struct pmu_format f;
	(void)state;

	assert_int_equal(pmu_format_parse("config:0-7", &f), 0);
	assert_int_equal(pmu_format_deposit(&f, 0x3c, &attr), 0);
	assert_int_equal(attr.config, 0xff3c);
	assert_int_equal(pmu_format_deposit(&f, 0x01, &attr), 0);
	assert_int_equal(attr.config, 0xff01);
	assert_int_equal(pmu_format_deposit(&f, 0x100, &attr), -ERANGE);

	assert_int_equal(pmu_format_parse("config1:1", &f), 0);
	assert_int_equal(pmu_format_deposit(&f, 1, &attr), 0);
	assert_int_equal(attr.config1, 0xa);
	assert_int_equal(pmu_format_deposit(&f, 2, &attr), -ERANGE);
	assert_int_equal(pmu_format_deposit(&f, 0, &attr), 0);
	assert_int_equal(attr.config1, 0x8);

	assert_int_equal(pmu_format_parse("config2:60-63", &f), 0);
	assert_int_equal(pmu_format_deposit(&f, 0xf, &attr), 0);
	assert_int_equal(attr.config2, 0xf000000000000000ULL);

	assert_int_equal(pmu_format_parse("config:0-63", &f), 0);
	assert_int_equal(pmu_format_deposit(&f, UINT64_MAX, &attr), 0);
	assert_int_equal(attr.config, UINT64_MAX);
}

static void test_type_read(void **state)
{
	uint32_t type = 0;
	(void)state;

	assert_int_equal(pmu_type_read(fixtures("intel"), "cpu", &type), 0);
	assert_int_equal(type, 4);
	assert_int_equal(pmu_type_read(fixtures("intel"), "power", &type), 0);
	assert_int_equal(type, 21);
	assert_int_equal(pmu_type_read(fixtures("arm64"), "armv8_pmuv3", &type), 0);
	assert_int_equal(type, 8);
	assert_int_equal(pmu_type_read(fixtures("arm64"), "software", &type), 0);
	assert_int_equal(type, 1);
	assert_int_equal(pmu_type_read(fixtures("intel"), "nope", &type), -ENOENT);
	assert_int_equal(pmu_type_read(fixtures("intel"), "../intel/cpu", &type), -ENOENT);
	assert_int_equal(pmu_type_read("/nonexistent/root", "cpu", &type), -ENOENT);
}

static void test_format_read(void **state)
{
	struct pmu_format f;
	(void)state;

	assert_int_equal(pmu_format_read(fixtures("intel"), "cpu", "ldlat", &f), 0);
	assert_int_equal(f.field, PMU_FIELD_CONFIG1);
	assert_int_equal(f.mask, 0xffff);
	assert_int_equal(pmu_format_read(fixtures("intel"), "cpu", "cmask", &f), 0);
	assert_int_equal(f.mask, 0xff000000ULL);
	assert_int_equal(pmu_format_read(fixtures("amd"), "cpu", "event", &f), 0);
	assert_int_equal(f.mask, 0xf000000ffULL);
	assert_int_equal(pmu_format_read(fixtures("arm64"), "armv8_pmuv3", "rdpmc", &f), 0);
	assert_int_equal(f.field, PMU_FIELD_CONFIG1);
	assert_int_equal(f.mask, 2);
	assert_int_equal(pmu_format_read(fixtures("intel"), "cpu", "nope", &f), -ENOENT);
	assert_int_equal(pmu_format_read(fixtures("intel"), "fixture_pmu", "broken", &f), -EINVAL);
}

static void test_desc_load(void **state)
{
	struct pmu_desc d;
	const struct pmu_format *f;
	(void)state;

	assert_int_equal(pmu_desc_load(fixtures("intel"), "cpu", &d), 0);
	assert_int_equal(d.type, 4);
	assert_int_equal(d.nr_formats, 7);
	assert_int_equal(pmu_desc_format(&d, "umask", &f), 0);
	assert_int_equal(f->mask, 0xff00);
	assert_int_equal(pmu_desc_format(&d, "frontend", &f), 0);
	assert_int_equal(f->mask, 0xffffff);
	assert_int_equal(pmu_desc_format(&d, "nope", &f), -ENOENT);

	assert_int_equal(pmu_desc_load(fixtures("intel"), "fixture_pmu", &d), 0);
	assert_int_equal(pmu_desc_format(&d, "broken", &f), -EINVAL);
	assert_int_equal(pmu_desc_format(&d, "bit", &f), 0);

	assert_int_equal(pmu_desc_load(fixtures("intel"), "software", &d), 0);
	assert_int_equal(d.type, 1);
	assert_int_equal(d.nr_formats, 0);
	assert_int_equal(pmu_desc_load(fixtures("intel"), "nope", &d), -ENOENT);
}

/*
 * Paths are joined by hand (no snprintf, pmu.c): root/pmu/type of exactly
 * PATH_MAX - 1 bytes is read; one byte more is refused, never cut short.
 * The root is padded with "/." segments, and one more "/" for an odd length.
 */
static void test_path_at_path_max(void **state)
{
	static char root[PATH_MAX + 8];
	const size_t tail = strlen("/cpu/type");
	uint32_t type = 0;
	size_t len, want;

	(void)state;
	for (int extra = 0; extra <= 1; extra++) {
		want = (size_t)PATH_MAX - 1 + (size_t)extra - tail;
		snprintf(root, sizeof(root), "%s", fixtures("intel"));
		len = strlen(root);
		if ((want - len) % 2)
			root[len++] = '/';	/* "a//b" is "a/b" */
		while (len < want) {
			memcpy(root + len, "/.", 2);
			len += 2;
		}
		root[len] = '\0';
		assert_int_equal(strlen(root) + tail, (size_t)PATH_MAX - 1 + (size_t)extra);
		assert_int_equal(pmu_type_read(root, "cpu", &type), extra ? -EINVAL : 0);
		if (!extra)
			assert_int_equal(type, 4);
	}
}

static void test_alias_read(void **state)
{
	char terms[64];
	char small[8];
	(void)state;

	assert_int_equal(pmu_alias_read(fixtures("intel"), "cpu", "mem-loads", terms,
					sizeof(terms)), 0);
	assert_string_equal(terms, "event=0xcd,umask=0x1,ldlat=3");	/* '\n' gone */
	assert_int_equal(pmu_alias_read(fixtures("intel"), "cpu", "mem-loads", small,
					sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(pmu_alias_read(fixtures("intel"), "cpu", "nope", terms,
					sizeof(terms)), -ENOENT);
	assert_int_equal(pmu_alias_read(fixtures("arm64"), "armv8_pmuv3", "cpu_cycles", terms,
					sizeof(terms)), 0);
	assert_string_equal(terms, "event=0x0011");
}

static void test_alias_display(void **state)
{
	double scale = 1.0;
	char unit[16] = "";
	(void)state;

	assert_int_equal(pmu_alias_display(fixtures("intel"), "power", "energy-pkg", &scale,
					   unit, sizeof(unit)), 0);
	assert_true(scale == 2.3283064365386962890625e-10);
	assert_string_equal(unit, "Joules");

	scale = 1.0;
	unit[0] = '\0';
	assert_int_equal(pmu_alias_display(fixtures("intel"), "cpu", "mem-loads", &scale,
					   unit, sizeof(unit)), 0);
	assert_true(scale == 1.0);
	assert_string_equal(unit, "");
}

static int count_name(void *ctx, const char *pmu, const char *name)
{
	int *n = ctx;

	(void)pmu;
	if (strchr(name, '.'))
		fail_msg("listed a non-alias file '%s'", name);
	(*n)++;
	return 0;
}

static void test_lists(void **state)
{
	int n = 0;
	(void)state;

	assert_int_equal(pmu_events_list(fixtures("intel"), "power", count_name, &n), 0);
	assert_int_equal(n, 2);		/* energy-pkg, energy-cores; not .scale/.unit */
	n = 0;
	assert_int_equal(pmu_events_list(fixtures("intel"), "cpu", count_name, &n), 0);
	assert_int_equal(n, 12);	/* 12 aliases (slots too); topdown-retiring.scale not counted */
	n = 0;
	assert_int_equal(pmu_formats_list(fixtures("arm64"), "armv8_pmuv3", count_name, &n), 0);
	assert_int_equal(n, 3);
	n = 0;
	assert_int_equal(pmu_list(fixtures("arm64"), count_name, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pmu_events_list(fixtures("intel"), "software", count_name, &n), -ENOENT);
}

static void test_name_valid(void **state)
{
	(void)state;
	assert_true(pmu_name_valid("cpu"));
	assert_true(pmu_name_valid("armv8_pmuv3"));
	assert_true(pmu_name_valid("mem-loads"));
	assert_false(pmu_name_valid(""));
	assert_false(pmu_name_valid(".."));
	assert_false(pmu_name_valid("a/b"));
	assert_false(pmu_name_valid("a b"));
	assert_false(pmu_name_valid("a\x01"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse_ranges),
		cmocka_unit_test(test_format_parse_malformed),
		cmocka_unit_test(test_deposit_split_range),
		cmocka_unit_test(test_deposit_clears_and_keeps_other_bits),
		cmocka_unit_test(test_type_read),
		cmocka_unit_test(test_format_read),
		cmocka_unit_test(test_desc_load),
		cmocka_unit_test(test_path_at_path_max),
		cmocka_unit_test(test_alias_read),
		cmocka_unit_test(test_alias_display),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_name_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
