/* SPDX-License-Identifier: MIT */
/*
 * list.h: `pfshim list [PATTERN]`, the events this machine can count
 * (list.c). Links the shim's resolvers from libpfshim-core.a.
 */
#ifndef PFSHIM_TOOLS_LIST_H
#define PFSHIM_TOOLS_LIST_H

/* The command's main: argv[0] is "list". Returns the exit status. */
int cmd_list(int argc, char **argv);

/*
 * list_groups - `pfshim list --metrics`: the group files of @arch (NULL:
 * this CPU's, as the shim chooses them) under @root, those whose name holds
 * @pattern (NULL: all), each as the shim reads it: what it measures, its
 * events as pfshim names them, its metrics. Return: 0, or 1 when none
 * (said on stderr).
 */
int list_groups(const char *root, const char *arch, const char *pattern);

#endif
