/* SPDX-License-Identifier: MIT */
/*
 * pmu.h: what sysfs says about a PMU (/sys/bus/event_source/devices/<pmu>/).
 *
 * The kernel describes each PMU with a `type` file, `format/<term>` files
 * ("config:0-7", "config:0-7,32-35", "config1:0") that say where a term's
 * bits go in perf_event_attr, and `events/<name>` alias files of terms, with
 * optional `<name>.scale` / `<name>.unit`. These functions read one fact each
 * and return 0 or a negative errno; the messages for a person are formed by
 * the caller (events.c). Everything works against any root directory, so unit
 * tests use fake trees under tests/fixtures/sysfs/.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_PMU_H
#define PFSHIM_PRELOAD_EVENTS_PMU_H

#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>

/* The sysfs root of the PMUs: the only spelling of it in preload/ (fastread/ has its own). */
#define PMU_SYSFS_ROOT "/sys/bus/event_source/devices"
#define PMU_NAME_MAX 64
#define PMU_FORMAT_SPEC_MAX 64

/* Which perf_event_attr field a format term lands in. */
enum pmu_field { PMU_FIELD_CONFIG, PMU_FIELD_CONFIG1, PMU_FIELD_CONFIG2 };

struct pmu_format {
	enum pmu_field field;
	uint64_t mask;				/* bits the term owns in @field */
	char spec[PMU_FORMAT_SPEC_MAX];		/* as sysfs wrote it, for messages */
};

#define PMU_FORMATS_MAX 48
#define PMU_TERM_MAX 32

/* A PMU's type and every format term, read once so that many items naming
 * the same PMU (or a megabyte of them) cost no file access each. */
struct pmu_desc {
	char name[PMU_NAME_MAX];
	uint32_t type;
	int nr_formats;
	struct {
		char term[PMU_TERM_MAX];
		int err;		/* 0, or -EINVAL for a malformed format file */
		struct pmu_format fmt;
	} formats[PMU_FORMATS_MAX];
};

/* 1 if @name can be a sysfs directory name of a PMU or event (no '/', no ".."). */
int pmu_name_valid(const char *name);

/* Read <root>/<pmu>/type. -ENOENT: no such PMU; -EINVAL: unreadable number. */
int pmu_type_read(const char *root, const char *pmu, uint32_t *type);

/* Parse a format file's text ("config:8-15,32-35"). -EINVAL if malformed. */
int pmu_format_parse(const char *text, struct pmu_format *fmt);

/* Read and parse <root>/<pmu>/format/<term>. -ENOENT: the PMU has no such term. */
int pmu_format_read(const char *root, const char *pmu, const char *term,
		    struct pmu_format *fmt);

/*
 * Place @value into @attr through @fmt: bit i of @value goes to the i-th set
 * bit of the mask, low to high (that is how split ranges such as AMD's
 * "config:0-7,32-35" hold a 12-bit event). The term's old bits are cleared
 * first, so a later term overrides an alias. -ERANGE: @value has more bits
 * than the mask holds (nothing is written).
 */
int pmu_format_deposit(const struct pmu_format *fmt, uint64_t value,
		       struct perf_event_attr *attr);

/*
 * Read <root>/<pmu>/type and every format/ file into @desc.
 * -ENOENT: no such PMU; -EINVAL: unreadable type. Terms beyond
 * PMU_FORMATS_MAX are left out (no PMU the kernel has comes close).
 */
int pmu_desc_load(const char *root, const char *pmu, struct pmu_desc *desc);

/* The format of @term in @desc: 0, -ENOENT (no such term) or -EINVAL (malformed). */
int pmu_desc_format(const struct pmu_desc *desc, const char *term,
		    const struct pmu_format **fmt);

/* How many bits a format holds (popcount of the mask). */
int pmu_format_width(const struct pmu_format *fmt);

/*
 * Read the alias <root>/<pmu>/events/<event> ("event=0xcd,umask=0x1,ldlat=3")
 * into @terms, trailing whitespace removed. -ENOENT: no such event.
 * -ENAMETOOLONG: the alias does not fit @size.
 */
int pmu_alias_read(const char *root, const char *pmu, const char *event,
		   char *terms, size_t size);

/*
 * Read events/<event>.scale and events/<event>.unit when they exist; @scale
 * and @unit are left untouched otherwise. Returns 0 (missing files are normal).
 */
int pmu_alias_display(const char *root, const char *pmu, const char *event,
		      double *scale, char *unit, size_t unit_size);

/* Called for each name; a non-zero return stops the walk and is returned. */
typedef int (*pmu_name_fn)(void *ctx, const char *pmu, const char *name);

/* Each PMU directory under @root (name passed as both arguments). */
int pmu_list(const char *root, pmu_name_fn fn, void *ctx);
/* Each alias under <root>/<pmu>/events/ (skipping .scale, .unit, ... files). */
int pmu_events_list(const char *root, const char *pmu, pmu_name_fn fn, void *ctx);
/* Each term under <root>/<pmu>/format/. */
int pmu_formats_list(const char *root, const char *pmu, pmu_name_fn fn, void *ctx);

#endif
