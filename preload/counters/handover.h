/* SPDX-License-Identifier: MIT */
/*
 * handover.h: counters opened by one image for the next: `pfshim run` opens
 * them in its child before exec (enable_on_exec, not close-on-exec), so the
 * count starts at the exec itself, the dynamic loader's work included, and
 * the shim in the new image adopts them instead of opening its own.
 * docs/kernel-notes.md "Counting from the exec".
 */
#ifndef PFSHIM_PRELOAD_COUNTERS_HANDOVER_H
#define PFSHIM_PRELOAD_COUNTERS_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "preload/counters/totals.h"

/* The variable that carries them across the exec, and the size its value needs. */
#define HANDOVER_VAR	"PFSHIM_ADOPT"
#define HANDOVER_MAX	(64 + EVENTS_MAX * 64)


/*
 * handover_open - open @events' counters for the next image into @s (as
 * counters_open_for_exec()) and describe them into @buf (handover_format(),
 * for this pid), only when no one else can get them and the next image
 * will keep them: the calling thread is its process's only one (no other
 * thread's child, fork()ed or spawned, can copy them before the exec), and
 * each counter is of its event's type as the kernel tells it (else the
 * adopting shim would close them). Return: 0, or -errno with @s closed:
 * -EBUSY another thread (or no /proc to tell), -ENOENT no event open,
 * -EINVAL a type the kernel tells otherwise, -ENOSPC @size too small.
 */
int handover_open(struct counter_set *s, const struct event_list *events,
		  const char *events_text, char *buf, size_t size);


/*
 * handover_format - describe @s for the image that @pid is about to exec,
 * whose events are the text @events_text: "1;PID;HASH;NR;" then per event
 * "FD:ID:LEADER:FLAGS:ERROR" separated by ','. Return: the length, or -1
 * when it does not fit @size.
 */
int handover_format(const struct counter_set *s, const char *events_text, pid_t pid,
		    char *buf, size_t size);

/*
 * handover_adopt - take the counters @text describes into @s, if every one
 * of them proves to be what it says: for this process's pid, each
 * descriptor a perf event ("anon_inode:[perf_event]" in /proc/self/fd) with
 * the ID it names, each group read whole in our read format returning
 * exactly its members' IDs, each group counting the calling thread (a
 * probe of ours may join it; beside other threads, the same-task rule of
 * PERF_EVENT_IOC_SET_OUTPUT); and then only when they are
 * @usable, for the same event text (@events_text) and number of events as
 * ours, and each of its event's type where the kernel can tell
 * (PERF_EVENT_IOC_MODIFY_ATTRIBUTES). Which event of a type it counts
 * (its config) nothing can prove. Adopted, they are made close-on-exec and
 * keep their numbers (placed by fd_move_away() before the exec, under the
 * same limits).
 * Return: 0 when adopted; -ESTALE when they proved to be handed to this
 * process but were not for these events (or not @usable): closed then;
 * -EINVAL when they did not prove anything, and then nothing is touched,
 * no descriptor closed: a bogus value may name the program's own files, or
 * another process's events that whoever exec'd us left open.
 */
int handover_adopt(struct counter_set *s, const struct event_list *events,
		   const char *events_text, bool usable, const char *text);

/*
 * handover_target_ok - will a shim load into the image that execvp(@file)
 * makes (@path: the PATH it searches, NULL for glibc's default), so that
 * descriptors left open for it are adopted? Only for a regular file found
 * as execvp() finds it, neither set-user-ID nor set-group-ID nor with file
 * capabilities (the shim is inert under AT_SECURE), a dynamically linked
 * ELF file of our class and machine (a static one loads no preload), or a
 * "#!" script whose interpreter is one; and not from a process whose real
 * and effective ids differ (its exec is secure: AT_SECURE). Whether
 * LD_PRELOAD names the shim is the caller's to know.
 */
bool handover_target_ok(const char *file, const char *path);

#endif
