/*
 * shim_target_arm64.c: the dynamically linked program test_shim_arm64 runs
 * under LD_PRELOAD=libpfshim.so: it retires 2 * argv[1] user instructions in
 * a known loop and exits, so the shim's report has a number we can know.
 */
#include "pmu_arm64.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	pmu_loop(strtoull(argv[1], NULL, 10));
	return 0;
}
