/* SPDX-License-Identifier: MIT */
/*
 * pfm.c: the libpfm4 resolver (see pfm.h). libpfm.so.4 is dlopen()ed
 * RTLD_LOCAL on the first vendor name of a parse that no kept answer covers
 * (pfm_answers.h) and dlclose()d at its end, so that the shim links only
 * libc (dlopen is in glibc's libc since 2.34) and no process that names
 * only built-in or sysfs events, or was handed its answers, maps it.
 * Under AT_SECURE the shim is inert and never gets here (docs/security.md,
 * class 1), so libpfm4's LIBPFM_* variables (LIBPFM_FORCE_PMU, ...), which
 * it reads in pfm_initialize(), cannot reach a privileged program.
 */
#include "preload/events/pfm.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/events/builtin.h"
#include "preload/events/pfm_answers.h"

const char *pfm_library = PFM_ABI_SONAME;

void pfm_names_start(struct pfm_names *r, struct diag *d)
{
	memset(r, 0, sizeof(*r));
	r->diag = d;
}

void pfm_names_end(struct pfm_names *r)
{
	if (r->state == PFM_READY) {
		r->terminate();
		dlclose(r->lib);
	}
	r->lib = NULL;
	r->state = PFM_UNTRIED;
}

/* @name from the library; the first one missing is said in r->why. */
static void *symbol(struct pfm_names *r, const char *name, int *missing)
{
	void *f = dlsym(r->lib, name);

	if (!f && !*missing) {
		snprintf(r->why, sizeof(r->why), "libpfm4 lacks %s", name);
		*missing = 1;
	}
	return f;
}

int pfm_names_load(struct pfm_names *r)
{
	pfm_abi_initialize_fn initialize;
	int missing = 0, err;

	if (r->state == PFM_READY)
		return 0;
	if (r->state != PFM_UNTRIED)
		return -ENOSYS;
	r->lib = pfm_library ? dlopen(pfm_library, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!r->lib) {
		r->state = PFM_MISSING;
		snprintf(r->why, sizeof(r->why), "vendor names need libpfm4: apt-get install libpfm4");
		return -ENOSYS;
	}
	initialize = (pfm_abi_initialize_fn)symbol(r, "pfm_initialize", &missing);
	r->terminate = (pfm_abi_terminate_fn)symbol(r, "pfm_terminate", &missing);
	r->strerror = (pfm_abi_strerror_fn)symbol(r, "pfm_strerror", &missing);
	r->encode = (pfm_abi_get_os_event_encoding_fn)symbol(r, "pfm_get_os_event_encoding",
							     &missing);
	r->pmu_info = (pfm_abi_get_pmu_info_fn)symbol(r, "pfm_get_pmu_info", &missing);
	r->event_next = (pfm_abi_get_event_next_fn)symbol(r, "pfm_get_event_next", &missing);
	r->event_info = (pfm_abi_get_event_info_fn)symbol(r, "pfm_get_event_info", &missing);
	r->attr_info = (pfm_abi_get_event_attr_info_fn)symbol(r, "pfm_get_event_attr_info",
							      &missing);
	err = missing ? PFM_ABI_SUCCESS : initialize();
	if (missing || err != PFM_ABI_SUCCESS) {
		if (!missing)
			snprintf(r->why, sizeof(r->why), "libpfm4 did not start: %s",
				 r->strerror(err));
		dlclose(r->lib);
		r->lib = NULL;
		r->state = PFM_BROKEN;
		return -ENOSYS;
	}
	r->state = PFM_READY;
	return 0;
}

const char *pfm_names_why(const struct pfm_names *r)
{
	return r->why;
}

/* libpfm4's encoding of @name, as a PFM_ABI_* code. */
static int encode(struct pfm_names *r, const char *name, struct perf_event_attr *attr)
{
	struct pfm_abi_perf_encode_arg arg;
	struct pfm_abi_event_info ev;
	int err;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	/* Every privilege level unless the name says otherwise (its u=, k=, h=):
	 * pfshim's own :u/:k/:h are applied by the caller, as for every event. */
	err = r->encode(name, PFM_ABI_PLM0 | PFM_ABI_PLM3 | PFM_ABI_PLMH,
			PFM_ABI_OS_PERF_EVENT_EXT, &arg);
	/* PFM_ERR_INVAL: a string it cannot even cut ("cycles instructions"). */
	if (err == PFM_ABI_ERR_INVAL)
		return PFM_ABI_ERR_NOTFOUND;
	if (err != PFM_ABI_SUCCESS)
		return err;
	/* Its perf_raw PMU reads "r0x1a", which perf (and builtin.c) refuse: raw
	 * events are pfshim's, spelled as perf spells them. */
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	if (r->event_info(arg.idx, PFM_ABI_OS_NONE, &ev) == PFM_ABI_SUCCESS &&
	    ev.pmu == PFM_ABI_PMU_PERF_EVENT_RAW)
		return PFM_ABI_ERR_NOTFOUND;
	return PFM_ABI_SUCCESS;
}

int pfm_encode(struct pfm_names *r, const char *name, struct perf_event_attr *attr,
	       const char **why)
{
	int err = pfm_answer_find(name, attr, why);

	if (err != -ESRCH)
		return err;
	if (pfm_names_load(r))
		return -ENOSYS;
	err = encode(r, name, attr);
	if (err == PFM_ABI_ERR_NOTFOUND) {
		err = -ENOENT;
	} else if (err != PFM_ABI_SUCCESS) {
		*why = r->strerror(err);
		err = -EINVAL;
	}
	pfm_answer_keep(name, err, attr, *why);
	return err;
}

int pfm_resolve(struct pfm_names *r, const char *item, const char *name,
		struct event_spec *spec)
{
	struct perf_event_attr attr;
	const char *why;
	int err = pfm_encode(r, name, &attr, &why);

	pfm_answer_mark_parsed(name);
	if (err == -EINVAL)
		diag_warn(r->diag, "libpfm4 cannot encode '%s': %s; the event is skipped", item, why);
	if (err)
		return err;
	spec->attr.type = attr.type;
	spec->attr.config = attr.config;
	spec->attr.config1 = attr.config1;
	spec->attr.config2 = attr.config2;
	spec->attr.exclude_user = attr.exclude_user;
	spec->attr.exclude_kernel = attr.exclude_kernel;
	spec->attr.exclude_hv = attr.exclude_hv;
	/* libpfm4's mg/mh defaults: what PAPI opens, and what a PMU without
	 * guest/host filtering gets no bit of. */
	spec->attr.exclude_guest = attr.exclude_guest;
	spec->attr.exclude_host = attr.exclude_host;
	/* Its u=/k=/h= chose the privilege levels: no unprivileged retry may change them. */
	spec->modifiers = attr.exclude_user || attr.exclude_kernel || attr.exclude_hv;
	spec->kind = event_builtin_kind(attr.type, attr.config);
	return 0;
}

static void list_umasks(struct pfm_names *r, const struct pfm_abi_event_info *ev,
			struct pfm_listed *e, void (*fn)(void *ctx, const struct pfm_listed *e),
			void *ctx)
{
	for (int a = 0; a < ev->nattrs; a++) {
		struct pfm_abi_event_attr_info at;

		memset(&at, 0, sizeof(at));
		at.size = sizeof(at);
		if (r->attr_info(ev->idx, a, PFM_ABI_OS_NONE, &at) != PFM_ABI_SUCCESS ||
		    at.type != PFM_ABI_ATTR_UMASK || !at.name)
			continue;
		e->umask = at.name;
		e->desc = at.desc ? at.desc : "";
		fn(ctx, e);
	}
}

bool pfm_names_cpu_unknown(const struct pfm_names *r)
{
	if (r->state != PFM_READY)
		return false;
	for (int pmu = 0; pmu < PFM_ABI_PMU_SCAN_MAX; pmu++) {
		struct pfm_abi_pmu_info pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (r->pmu_info(pmu, &pi) == PFM_ABI_SUCCESS && pi.flags.is_present &&
		    pi.type == PFM_ABI_PMU_TYPE_CORE)
			return false;
	}
	return true;
}

int pfm_names_list(struct pfm_names *r, void (*fn)(void *ctx, const struct pfm_listed *e),
		   void *ctx)
{
	if (pfm_names_load(r))
		return -ENOSYS;
	for (int pmu = 0; pmu < PFM_ABI_PMU_SCAN_MAX; pmu++) {
		struct pfm_abi_pmu_info pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pmu == PFM_ABI_PMU_PERF_EVENT || pmu == PFM_ABI_PMU_PERF_EVENT_RAW ||
		    r->pmu_info(pmu, &pi) != PFM_ABI_SUCCESS || !pi.flags.is_present)
			continue;
		for (int i = pi.first_event; i != -1; i = r->event_next(i)) {
			struct pfm_abi_event_info ev;
			struct pfm_listed e = { .pmu = pi.name };

			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (r->event_info(i, PFM_ABI_OS_NONE, &ev) != PFM_ABI_SUCCESS || !ev.name)
				continue;
			e.event = ev.name;
			e.desc = ev.desc ? ev.desc : "";
			fn(ctx, &e);
			list_umasks(r, &ev, &e, fn, ctx);
		}
	}
	return 0;
}
