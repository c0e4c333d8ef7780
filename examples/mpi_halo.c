/* SPDX-License-Identifier: MIT */
/*
 * mpi_halo [ITER [PAGES]]: a 1-D stencil on a ring of MPI ranks, split
 * unevenly on purpose, with a pfshim region around each phase, so that a
 * run under the shim shows the imbalance rank by rank:
 *
 *   compute   rank r owns (r+1)*PAGES pages of cells (PAGES default 64):
 *             each iteration writes the new values into a freshly mapped
 *             buffer, so the region's page-faults are the work itself:
 *             exactly (r+1)*PAGES per call. Rank 3 of 4 does 4 times the
 *             work of rank 0.
 *   exchange  the halo: one cell to each neighbour and one from each
 *             (MPI_Sendrecv both ways). The fast ranks wait here for the
 *             slow one.
 *   reduce    every 10th iteration, the sum over all cells (MPI_Allreduce).
 *
 * ITER iterations (default 100): on every rank, compute and exchange are
 * called ITER times and reduce ITER/10 times, all in the main thread. The
 * markers cost nothing without libpfshim.so (pfshim.h): the program runs
 * the same without the shim, and prints the same line.
 *
 *	mpicc -O2 -Iinclude -o mpi_halo examples/mpi_halo.c
 *	mpirun -np 4 -x LD_PRELOAD=$PWD/build/libpfshim.so -x PFSHIM_OUTPUT=rep/ ./mpi_halo
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>
#include <pfshim.h>

/*
 * A fresh private mapping of @pages pages: its first write to each page is
 * one page fault. Huge pages are refused: one transparent huge page would
 * take 512 pages in a single fault, and the count would no longer be the work.
 */
static double *cells_map(size_t pages, size_t page)
{
	void *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mpi_halo: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	long iterations = argc > 1 ? atol(argv[1]) : 100;
	long per_rank = argc > 2 ? atol(argv[2]) : 64;
	if (iterations < 1 || per_rank < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_halo [ITER [PAGES]] (both at least 1)\n");
		MPI_Finalize();
		return 2;
	}

	/* n cells and a ghost cell at each end fill the pages exactly. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (size_t)(rank + 1) * (size_t)per_rank;
	size_t n = pages * page / sizeof(double) - 2;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;

	pfshim_region_t r_compute = pfshim_region("compute");
	pfshim_region_t r_exchange = pfshim_region("exchange");
	pfshim_region_t r_reduce = pfshim_region("reduce");

	double *u = cells_map(pages, page);
	for (size_t i = 1; i <= n; i++)
		u[i] = (double)rank;
	u[0] = u[n + 1] = (double)rank;

	double total = 0;
	for (long it = 0; it < iterations; it++) {
		pfshim_begin(r_compute);
		double *next = cells_map(pages, page);
		for (size_t i = 1; i <= n; i++)
			next[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
		munmap(u, pages * page);
		u = next;
		pfshim_end(r_compute);

		pfshim_begin(r_exchange);
		MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		pfshim_end(r_exchange);

		if ((it + 1) % 10 == 0) {
			double local = 0;

			pfshim_begin(r_reduce);
			for (size_t i = 1; i <= n; i++)
				local += u[i];
			MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			pfshim_end(r_reduce);
		}
	}

	if (rank == 0)
		printf("mpi_halo: %d ranks, %ld iterations, %ld..%ld pages per rank, sum %.6e\n",
		       size, iterations, per_rank, (long)size * per_rank, total);
	munmap(u, pages * page);
	MPI_Finalize();
	return 0;
}
