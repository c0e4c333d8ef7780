/*
 * markers_nested OUTER INNER: region "outer" touches OUTER fresh pages and
 * holds region "inner", which touches INNER pages and burns a little CPU.
 * Inclusive counts: outer >= OUTER + INNER page-faults, inner >= INNER.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pfshim.h"

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	p = mmap(NULL, (n + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	madvise(p, (n + 1) * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
}

int main(int argc, char **argv)
{
	long outer = argc > 1 ? atol(argv[1]) : 100, inner = argc > 2 ? atol(argv[2]) : 50;
	volatile unsigned long x = 0;

	PFSHIM_REGION_BEGIN("outer");
	touch(outer);
	PFSHIM_REGION_BEGIN("inner");
	touch(inner);
	for (long i = 0; i < 20000000; i++)
		x += i;
	PFSHIM_REGION_END("inner");
	PFSHIM_REGION_END("outer");
	return x == 0;
}
