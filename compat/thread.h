/* SPDX-License-Identifier: MIT */
/* thread.h: the compat layers' per-thread and shared variables, as cheap to reach as can be. */
#ifndef PFSHIM_COMPAT_THREAD_H
#define PFSHIM_COMPAT_THREAD_H

/*
 * initial-exec: the library is preloaded or linked into the program (a
 * dlopen() takes the loader's static TLS reserve, which these few bytes
 * fit), so a region call's access is an mrs and a load or store, not a
 * call to the dynamic TLS resolver (~30 instructions a call on arm64).
 */
#define COMPAT_THREAD __thread __attribute__((tls_model("initial-exec")))

/*
 * compat_fn_load - a function pointer another thread may store (relaxed): a
 * volatile load, one ldr at the pointer's offset from its section's anchor,
 * where GCC 12 computes the address of a __atomic_load_n()'s operand in full
 * first (two adds more, arm64). An aligned pointer's load is single-copy
 * atomic on every target we build for.
 */
#define compat_fn_load(p) (*(__typeof__(*(p)) volatile *)(p))

#endif
