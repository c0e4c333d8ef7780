/* SPDX-License-Identifier: MIT */
/*
 * pfm.h: the resolver of vendor event names ("INST_RETIRED:ANY_P",
 * "skl::L1D:REPLACEMENT", perf's "inst_retired.any_p"), asked after the
 * built-in and sysfs ones. The names and their encodings are libpfm4's (the
 * library PAPI uses), loaded with dlopen() when the first such name is
 * asked for, never on the default path, and unloaded at the end of the
 * parse: the shim links only libc, and a machine without libpfm4 gets a
 * message saying what to install. pfm_abi.h declares the bits of libpfm4's
 * ABI used here.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_PFM_H
#define PFSHIM_PRELOAD_EVENTS_PFM_H

#include <stdbool.h>

#include "preload/events/diag.h"
#include "preload/events/pfm_abi.h"
#include "preload/events/spec.h"

/* The library dlopen() loads: PFM_ABI_SONAME. Unit tests name a missing one;
 * NULL stands for "not installed" without a dlopen() (the fuzz targets). */
extern const char *pfm_library;

enum pfm_state { PFM_UNTRIED, PFM_READY, PFM_MISSING, PFM_BROKEN };

struct pfm_names {
	enum pfm_state state;
	struct diag *diag;
	void *lib;		/* dlopen() handle while PFM_READY */
	pfm_abi_terminate_fn terminate;
	pfm_abi_strerror_fn strerror;
	pfm_abi_get_os_event_encoding_fn encode;
	pfm_abi_get_pmu_info_fn pmu_info;
	pfm_abi_get_event_next_fn event_next;
	pfm_abi_get_event_info_fn event_info;
	pfm_abi_get_event_attr_info_fn attr_info;
	char why[96];		/* PFM_MISSING or PFM_BROKEN: what happened, for a message */
};

/* Start with nothing loaded; messages go to @d (may be NULL: silent). */
void pfm_names_start(struct pfm_names *r, struct diag *d);

/* pfm_terminate() and dlclose(), if loaded. */
void pfm_names_end(struct pfm_names *r);

/* Load libpfm4 now, if not yet. Return: 0, or -ENOSYS (r->why says why). */
int pfm_names_load(struct pfm_names *r);

/*
 * pfm_names_cpu_unknown - libpfm4, already loaded, has tables for no core
 * PMU present here (a CPU newer than the library): a vendor name cannot be
 * had on this machine, however spelled. false when it knows one, or when it
 * is not loaded (it is not loaded for this).
 */
bool pfm_names_cpu_unknown(const struct pfm_names *r);

/* What to say of an unknown name where pfm_names_cpu_unknown(). */
#define PFM_CPU_UNKNOWN_WHY \
	"libpfm4 has no tables for this CPU, so no vendor name resolves here: use the event's raw " \
	"code, or LIBPFM_FORCE_PMU with a PMU whose events are this CPU's (docs/events.md)"

/*
 * pfm_resolve - @name (no pfshim modifiers) into @spec's attr: type,
 * config, config1, config2 and the exclude_* bits libpfm4 sets (its own u=,
 * k=, h=, mg=, mh= attributes; none by default), with @spec->kind
 * REPORT_KIND_PMU (or a built-in kind for libpfm4's perf:: names).
 * perf's spelling ("inst_retired.any_p") needs nothing here: libpfm4 4.13
 * reads a '.' as it reads a ':'.
 * @item is the whole item, for messages.
 *
 * Return: 0; -ENOENT when libpfm4 has no such event (nothing was said);
 * -ENOSYS when libpfm4 cannot be loaded (nothing was said: pfm_names_why());
 * -EINVAL after a message (an event libpfm4 knows with a bad unit mask or
 * attribute).
 */
int pfm_resolve(struct pfm_names *r, const char *item, const char *name,
		struct event_spec *spec);

/*
 * pfm_encode - libpfm4's encoding of @name, for perf_event_open, at every
 * privilege level unless the name says otherwise: type, config, config1,
 * config2 and the exclude_* bits. An answer this process was handed or got
 * before is taken without libpfm4 (pfm_answers.h), and each new one is kept.
 * Return: 0; -ENOENT (no such event); -ENOSYS (libpfm4 cannot be loaded);
 * -EINVAL, with @why libpfm4's reason ("invalid or missing unit mask").
 * Says nothing.
 */
int pfm_encode(struct pfm_names *r, const char *name, struct perf_event_attr *attr,
	       const char **why);

/* After -ENOSYS: what to do, for the unknown-event message
 * ("vendor names need libpfm4: apt-get install libpfm4"). */
const char *pfm_names_why(const struct pfm_names *r);

/* One name libpfm4 lists: "pmu::EVENT" or "pmu::EVENT:UMASK". */
struct pfm_listed {
	const char *pmu;	/* libpfm4's PMU name ("skl", "amd64_fam19h_zen3") */
	const char *event;
	const char *umask;	/* NULL for the event itself */
	const char *desc;
};

/*
 * pfm_names_list - call @fn for every event and unit mask of the PMUs
 * libpfm4 finds on this CPU (or LIBPFM_FORCE_PMU names), but not its
 * "perf" and "perf_raw" PMUs, whose names are pfshim's built-in ones.
 * Return: 0, or -ENOSYS when libpfm4 cannot be loaded.
 */
int pfm_names_list(struct pfm_names *r, void (*fn)(void *ctx, const struct pfm_listed *e),
		   void *ctx);

#endif
