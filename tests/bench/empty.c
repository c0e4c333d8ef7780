/* SPDX-License-Identifier: MIT */
/*
 * empty.c: a shared object with nothing in it. Preloading it measures what
 * LD_PRELOAD alone costs (loader work, one more mapping), apart from the shim.
 */
static const int empty_marker __attribute__((used)) = 0;
