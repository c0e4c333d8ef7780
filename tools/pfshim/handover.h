/*
 * handover.h: `pfshim run`'s side of the hand-over (preload/counters/
 * handover.h): in the child, before exec, open the counters the shim would
 * open, for the exec to start them, and name them in PFSHIM_ADOPT.
 */
#ifndef PFSHIM_TOOLS_HANDOVER_H
#define PFSHIM_TOOLS_HANDOVER_H

#include <stdbool.h>

/*
 * run_handover_target_ok - will the shim load into the image that
 * execvp(@file) makes, to adopt the descriptors? Only for a regular file
 * found as execvp() finds it, neither set-user-ID nor set-group-ID nor with
 * file capabilities (the shim is inert under AT_SECURE), a dynamically
 * linked ELF file of this program's class and machine (a static one loads
 * no shim), or a "#!" script whose interpreter is one.
 */
bool run_handover_target_ok(const char *file);

/*
 * run_handover_open - open the counters for the environment as it is now
 * (PFSHIM_EVENTS...) and set PFSHIM_ADOPT; nothing when they cannot be.
 * Call in the child, just before exec; run_handover_close() if exec fails.
 */
void run_handover_open(void);
void run_handover_close(void);

#endif
