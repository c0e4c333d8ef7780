/* SPDX-License-Identifier: MIT */
/*
 * pfm_abi.h: the few types and constants of libpfm4's ABI the pfm resolver
 * uses, declared here so that the shim builds without libpfm4-dev and
 * links only libc: libpfm.so.4 is dlopen()ed when a vendor name is named.
 * Copied from libpfm4 4.13's perfmon/pfmlib.h and perfmon/pfmlib_perf_event.h
 * (the SONAME's ABI: structures carry a size field and only grow);
 * tests/unit/events/test_pfm.c compiles against the real headers and checks
 * every value, offset and size below.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_PFM_ABI_H
#define PFSHIM_PRELOAD_EVENTS_PFM_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PFM_ABI_SONAME "libpfm.so.4"

/* pfmlib.h: privilege levels for dfl_plm */
#define PFM_ABI_PLM0 0x01	/* kernel */
#define PFM_ABI_PLM3 0x08	/* user */
#define PFM_ABI_PLMH 0x10	/* hypervisor */

/* pfmlib.h: pfm_os_t */
#define PFM_ABI_OS_PERF_EVENT_EXT 2

/* pfmlib.h: error codes */
#define PFM_ABI_SUCCESS 0
#define PFM_ABI_ERR_INVAL (-2)
#define PFM_ABI_ERR_NOTFOUND (-4)

/* pfmlib_perf_event.h: pfm_perf_encode_arg_t */
struct pfm_abi_perf_encode_arg {
	struct perf_event_attr *attr;	/* in/out */
	char **fstr;			/* out: fully qualified name, malloc()ed; or NULL */
	size_t size;			/* sizeof this struct */
	int idx;			/* out: event index */
	int cpu;
	int flags;
	int pad0;
};

/* pfmlib.h: pfm_pmu_type_t's PFM_PMU_TYPE_CORE: a CPU core's PMU */
#define PFM_ABI_PMU_TYPE_CORE 1

/* pfmlib.h: pfm_pmu_info_t */
struct pfm_abi_pmu_info {
	const char *name;
	const char *desc;
	size_t size;
	int pmu;		/* pfm_pmu_t */
	int type;		/* pfm_pmu_type_t */
	int nevents;
	int first_event;
	int max_encoding;
	int num_cntrs;
	int num_fixed_cntrs;
	struct {
		unsigned int is_present:1;
		unsigned int is_dfl:1;
		unsigned int reserved_bits:30;
	} flags;
};

/* pfmlib.h: pfm_event_info_t */
struct pfm_abi_event_info {
	const char *name;
	const char *desc;
	const char *equiv;
	size_t size;
	uint64_t code;
	int pmu;		/* pfm_pmu_t */
	int dtype;		/* pfm_dtype_t */
	int idx;
	int nattrs;
	int reserved;
	struct {
		unsigned int is_precise:1;
		unsigned int is_speculative:2;
		unsigned int support_hw_smpl:1;
		unsigned int reserved_bits:28;
	} flags;
};

/* pfmlib.h: pfm_event_attr_info_t, and its type PFM_ATTR_UMASK; pfm_os_t PFM_OS_NONE */
#define PFM_ABI_ATTR_UMASK 1
#define PFM_ABI_OS_NONE 0

struct pfm_abi_event_attr_info {
	const char *name;
	const char *desc;
	const char *equiv;
	size_t size;
	uint64_t code;
	int type;		/* pfm_attr_t */
	int idx;
	int ctrl;		/* pfm_attr_ctrl_t */
	struct {
		unsigned int is_dfl:1;
		unsigned int is_precise:1;
		unsigned int is_speculative:2;
		unsigned int support_hw_smpl:1;
		unsigned int reserved_bits:27;
	} flags;
	union {
		uint64_t dfl_val64;
		const char *dfl_str;
		int dfl_bool;
		int dfl_int;
	} defaults;
};

/* pfmlib.h: pfm_pmu_t values the resolver skips when listing (pfshim's own names) */
#define PFM_ABI_PMU_PERF_EVENT 51
#define PFM_ABI_PMU_PERF_EVENT_RAW 114
#define PFM_ABI_PMU_SCAN_MAX 4096	/* pfm_pmu_t grows; pfm_get_pmu_info() refuses past its end */

/* The entry points, as dlsym() returns them. */
typedef int (*pfm_abi_initialize_fn)(void);
typedef void (*pfm_abi_terminate_fn)(void);
typedef const char *(*pfm_abi_strerror_fn)(int code);
typedef int (*pfm_abi_get_os_event_encoding_fn)(const char *str, int dfl_plm, int os, void *args);
typedef int (*pfm_abi_get_pmu_info_fn)(int pmu, struct pfm_abi_pmu_info *out);
typedef int (*pfm_abi_get_event_next_fn)(int idx);
typedef int (*pfm_abi_get_event_info_fn)(int idx, int os, struct pfm_abi_event_info *out);
typedef int (*pfm_abi_get_event_attr_info_fn)(int idx, int attr, int os,
					      struct pfm_abi_event_attr_info *out);

#endif
