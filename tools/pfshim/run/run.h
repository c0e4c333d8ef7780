/* SPDX-License-Identifier: MIT */
/*
 * run.h: `pfshim run` (run.c), called from main.c with the arguments after
 * "pfshim": argv[0] is "run".
 */
#ifndef PFSHIM_TOOLS_RUN_H
#define PFSHIM_TOOLS_RUN_H

/* cmd_run - run a command as one counted job; its exit status, or 2 for a usage error. */
int cmd_run(int argc, char **argv);

#endif
