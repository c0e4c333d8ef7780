/* SPDX-License-Identifier: MIT */
/*
 * prefault.c: see prefault.h. Why: pfshim run hands the shim counters
 * opened before the exec, and its report is meant to equal perf stat's
 * count of the same image; every fault after the report's read (its
 * buffer, the writer's statics and stack, a page of its code not yet
 * mapped) made the report 3-4 page-faults short (docs/performance.md,
 * "Counted from the exec").
 */
#include "preload/prefault.h"

#include <errno.h>
#include <link.h>	/* ElfW() */
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "preload/sandbox.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define PAGE 4096u

/*
 * Defined by the linker: this object's own ELF header, the start of its
 * first segment. An array of unknown size, not an Ehdr: the program headers
 * follow it, and an object of Ehdr's size would end before them.
 */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));

/*
 * Defined by preload/layout.ld: the code no report runs after its read
 * (cold), and the code a default run never calls (warm). Weak: an object
 * linked without that script (the unit tests) has neither, and then every
 * page is touched.
 */
extern const char __pfshim_cold_start[] __attribute__((weak, visibility("hidden")));
extern const char __pfshim_cold_end[] __attribute__((weak, visibility("hidden")));
extern const char __pfshim_warm_start[] __attribute__((weak, visibility("hidden")));
extern const char __pfshim_warm_end[] __attribute__((weak, visibility("hidden")));

/* Does the page at @a overlap [@start, @end)? False when the script defined neither. */
static bool page_within(uintptr_t a, const char *start, const char *end)
{
	return start && end && a + PAGE > (uintptr_t)start && a < (uintptr_t)end;
}

/* Read one byte of each page of [@start, @end), but the cold ones and, unless @warm, the warm. */
__attribute__((no_sanitize_address, no_sanitize_undefined)) static void
prefault_range(uintptr_t start, uintptr_t end, bool warm)
{
	for (uintptr_t a = start & ~(uintptr_t)(PAGE - 1); a < end; a += PAGE)
		if (!page_within(a, __pfshim_cold_start, __pfshim_cold_end) &&
		    (warm || !page_within(a, __pfshim_warm_start, __pfshim_warm_end)))
			(void)*(volatile const char *)a;
}

/*
 * Uninstrumented: one byte of every page is read, whatever object lies
 * there; under ASan that is often a global's redzone (make check-asan).
 * Page by page, not segment by segment: a linker may put several parts
 * in one segment (aarch64's ld does not separate code, lld puts the hot
 * code with the warm). Left out: the cold pages, the warm ones unless
 * @warm, and the unwind tables from .eh_frame_hdr to the end of their
 * segment (.eh_frame, 9 pages), which only an unwinder reads
 * (pthread_cancel, a backtrace), never a report; the warm part, when it
 * lies after them there, is read by itself.
 */
__attribute__((no_sanitize_address, no_sanitize_undefined)) void prefault_self(bool warm)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)(__ehdr_start + eh->e_phoff);
	uintptr_t base = (uintptr_t)__ehdr_start, unwind = UINTPTR_MAX;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			unwind = base + ph[i].p_vaddr;
	for (int i = 0; i < eh->e_phnum; i++) {
		uintptr_t start = base + ph[i].p_vaddr, end = start + ph[i].p_filesz;

		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_W))
			continue;
		if (unwind >= start && unwind < end)
			end = unwind;
		prefault_range(start, end, warm);
	}
	if (warm && __pfshim_warm_start && __pfshim_warm_end)
		prefault_range((uintptr_t)__pfshim_warm_start, (uintptr_t)__pfshim_warm_end, true);
}

/* The pages of [@start, @end) present in one madvise(@advice): false where the kernel did not. */
static bool populate(uintptr_t start, uintptr_t end, int advice)
{
	uintptr_t base = start & ~(uintptr_t)(PAGE - 1);
	int saved_errno = errno;
	bool done;

	if (end <= start || sandbox_filtered())
		return false;
	/*
	 * madvise(), not syscall(): the shim's own syscall() is its interposer
	 * (shim.c), whose reads of the shim's statics would each fault the very
	 * pages a first call populates.
	 */
	done = madvise((void *)base, end - base, advice) == 0;
	errno = saved_errno;
	return done;
}

void prefault_self_populate(void)
{
	/* Without layout.ld (the unit tests' archive) there is no hot part to tell apart. */
	if (__pfshim_cold_start)
		populate((uintptr_t)__ehdr_start, (uintptr_t)__pfshim_cold_start, MADV_POPULATE_READ);
}

bool prefault_populate(void *p, size_t len)
{
	return populate((uintptr_t)p, (uintptr_t)p + len, MADV_POPULATE_WRITE);
}

void prefault_write(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, end = a + len;

	/* One page: a touch, free when it is there already (a report's text, formatted into it). */
	if ((a & ~(uintptr_t)(PAGE - 1)) != ((end - 1) & ~(uintptr_t)(PAGE - 1)) &&
	    prefault_populate(p, len))
		return;

	for (; a < end; a = (a & ~(uintptr_t)(PAGE - 1)) + PAGE)
		atomic_fetch_or_explicit((_Atomic unsigned char *)a, 0, memory_order_relaxed);
}

void prefault_stack(size_t bytes)
{
	char probe[bytes];

	if (prefault_populate(probe, bytes))
		return;
	for (size_t i = 0; i < bytes; i += PAGE)
		((volatile char *)probe)[i] = 0;
	((volatile char *)probe)[bytes - 1] = 0;
}
