/* SPDX-License-Identifier: MIT */
/*
 * check.h: `pfshim check` (check.c), called from main.c with the arguments
 * after "pfshim": argv[0] is "check".
 */
#ifndef PFSHIM_TOOLS_CHECK_H
#define PFSHIM_TOOLS_CHECK_H

/* cmd_check - 0 when every bound holds, 1 when one is broken, 2 for a usage error or a bound that names nothing. */
int cmd_check(int argc, char **argv);

#endif
