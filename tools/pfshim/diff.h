/* SPDX-License-Identifier: MIT */
/*
 * diff.h: `pfshim diff` (diff.c), called from main.c with the arguments
 * after "pfshim": argv[0] is "diff".
 */
#ifndef PFSHIM_TOOLS_DIFF_H
#define PFSHIM_TOOLS_DIFF_H

/* cmd_diff - 0, or 2 for a usage error or an input without reports. */
int cmd_diff(int argc, char **argv);

#endif
