/* SPDX-License-Identifier: MIT */
/*
 * prefault.h: the pages a report touches after it reads its counters,
 * touched before the read, so that the count it writes is the count of the
 * whole image: a page fault taken while the report is formatted and written
 * would be counted by perf stat and missed by the report. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_PREFAULT_H
#define PFSHIM_PRELOAD_PREFAULT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * PREFAULT_DATA - for a small static that every process writes at start
 * (the standard streams' record, the job's role): placed in .data, not
 * .bss, so that they share the one page of the shim's .data (under 1 KiB
 * in all), which the loader has written already (it zeroes the page's
 * tail), where each took a .bss page of its own (docs/performance.md,
 * "Counted from the exec"). Zero-initialized all the same. Not for the
 * first static of .bss (shim.c's dlsym table): its page holds the C
 * runtime's destructor flag, written at exit after the report's read.
 */
#define PREFAULT_DATA __attribute__((section(".data.pfshim")))

/*
 * prefault_self - read one byte of each page of libpfshim.so's own
 * read-only segments (code, constants), found from its ELF header: a page
 * already mapped costs nothing, one that is not is faulted in now (with
 * fault-around, its neighbours too) instead of after the read. Not the
 * pages of the code preload/layout.ld keeps apart because no report runs
 * it after its read, nor the unwind tables: they would be resident in
 * every process.
 * @warm: layout.ld's warm code too (what a default run never calls), for
 * a count that must hold the whole image's faults (pfshim run's, since
 * the exec); without it, a fault there after the read is the shim's own
 * work, after its count.
 */
void prefault_self(bool warm);

/*
 * prefault_self_populate - what prefault_self() reads, from the ELF header
 * to layout.ld's cold part (read-only segments, contiguous), mapped in one
 * system call (MADV_POPULATE_READ, Linux 5.14) at start, before start's
 * code faults 3 or 4 fault-around windows of it, each a trap. Nothing
 * without layout.ld, on an older kernel, or under a seccomp filter.
 */
void prefault_self_populate(void);

/*
 * prefault_populate - make the pages of [@p, @p + @len) present and
 * writable in one system call (madvise MADV_POPULATE_WRITE, Linux 5.14), as
 * if each had been written: no value changes. A page fault costs 10-15 us
 * in a VM that traps each one (docs/performance.md, "CPU per child
 * process"); the call, with a dozen pages, about as much as one. For the
 * statics each process writes at start, populated where they are first
 * written. Return: false where the kernel does not (the pages then fault
 * when written, as before) or under the program's seccomp filter, where an
 * unexpected system call may kill it.
 */
bool prefault_populate(void *p, size_t len);

/*
 * prefault_write - take the write fault of each page of [@p, @p + @len)
 * now: prefault_populate() for a range of more than one page, else an
 * atomic OR of 0 into one byte per page (no value changes, safe beside
 * other threads writing there).
 */
void prefault_write(void *p, size_t len);

/*
 * prefault_stack - the next @bytes of the calling thread's stack, below
 * its current depth, written now: what the writer's deeper calls use.
 */
void prefault_stack(size_t bytes);

#endif
