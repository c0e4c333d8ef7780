/*
 * prefault.h: the pages a report touches after it reads its counters,
 * touched before the read, so that the count it writes is the count of the
 * whole image: a page fault taken while the report is formatted and written
 * would be counted by perf stat and missed by the report. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_PREFAULT_H
#define PFSHIM_PRELOAD_PREFAULT_H

#include <stddef.h>

/*
 * prefault_self - read one byte of each page of libpfshim.so's own
 * read-only segments (code, constants), found from its ELF header: a page
 * already mapped costs nothing, one that is not is faulted in now (with
 * fault-around, its neighbours too) instead of after the read.
 */
void prefault_self(void);

/*
 * prefault_write - take the write fault of each page of [@p, @p + @len)
 * now (an atomic OR of 0 into one byte per page: no value changes, safe
 * beside other threads writing there).
 */
void prefault_write(void *p, size_t len);

/*
 * prefault_stack - the next @bytes of the calling thread's stack, below
 * its current depth, written now: what the writer's deeper calls use.
 */
void prefault_stack(size_t bytes);

#endif
