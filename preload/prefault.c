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

#include <link.h>	/* ElfW() */
#include <stdatomic.h>
#include <stdint.h>

#define PAGE 4096u

/*
 * Defined by the linker: this object's own ELF header, the start of its
 * first segment. An array of unknown size, not an Ehdr: the program headers
 * follow it, and an object of Ehdr's size would end before them.
 */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));

/*
 * Uninstrumented: one byte of every page is read, whatever object lies
 * there; under ASan that is often a global's redzone (make check-asan).
 */
__attribute__((no_sanitize_address, no_sanitize_undefined)) void prefault_self(void)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)(__ehdr_start + eh->e_phoff);

	for (int i = 0; i < eh->e_phnum; i++) {
		uintptr_t start, end;

		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_W))
			continue;
		start = ((uintptr_t)__ehdr_start + ph[i].p_vaddr) & ~(uintptr_t)(PAGE - 1);
		end = (uintptr_t)__ehdr_start + ph[i].p_vaddr + ph[i].p_filesz;
		for (uintptr_t a = start; a < end; a += PAGE)
			(void)*(volatile const char *)a;
	}
}

void prefault_write(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, end = a + len;

	for (; a < end; a = (a & ~(uintptr_t)(PAGE - 1)) + PAGE)
		atomic_fetch_or_explicit((_Atomic unsigned char *)a, 0, memory_order_relaxed);
}

void prefault_stack(size_t bytes)
{
	char probe[bytes];

	for (size_t i = 0; i < bytes; i += PAGE)
		((volatile char *)probe)[i] = 0;
	((volatile char *)probe)[bytes - 1] = 0;
}
