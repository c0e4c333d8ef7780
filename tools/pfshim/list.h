/* SPDX-License-Identifier: MIT */
/*
 * list.h: `pfshim list [PATTERN]`, the events this machine can count
 * (list.c). Links the shim's resolvers from libpfshim-core.a.
 */
#ifndef PFSHIM_TOOLS_LIST_H
#define PFSHIM_TOOLS_LIST_H

/* The command's main: argv[0] is "list". Returns the exit status. */
int cmd_list(int argc, char **argv);

#endif
