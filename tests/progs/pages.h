/*
 * pages.h: what every page-fault test program does, written once: fault in
 * exactly N fresh anonymous pages, one write each, so that page-faults can
 * be asserted to the page. Huge pages are refused for the mapping: one
 * transparent huge page would take 512 pages in a single fault.
 */
#ifndef PFSHIM_TESTS_PAGES_H
#define PFSHIM_TESTS_PAGES_H

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline void pages_touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, n * page);
}

#endif
