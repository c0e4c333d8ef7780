/* SPDX-License-Identifier: MIT */
/* thread.h: the compat layers' per-thread variables, as cheap as the loader allows. */
#ifndef PFSHIM_COMPAT_THREAD_H
#define PFSHIM_COMPAT_THREAD_H

/*
 * initial-exec: the library is preloaded or linked into the program (a
 * dlopen() takes the loader's static TLS reserve, which these few bytes
 * fit), so a region call's access is an mrs and a load or store, not a
 * call to the dynamic TLS resolver (~30 instructions a call on arm64).
 */
#define COMPAT_THREAD __thread __attribute__((tls_model("initial-exec")))

#endif
