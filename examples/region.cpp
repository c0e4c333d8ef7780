/* SPDX-License-Identifier: MIT */
// region [STEPS]: the C++ scope API of pfshim/region.hpp on a small solver.
// Region "solve" around everything, "step" (through a pfshim::handle) around
// each of STEPS steps (default 10), and "check" around a function that throws
// on every third step: the exception leaves the scope, and the region still
// ends. Without libpfshim.so preloaded every region is a no-op.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <pfshim/region.hpp>

static void check(long step, double x)
{
	pfshim::region r("check");
	if (step % 3 == 0)
		throw std::runtime_error("step divisible by 3");
	(void)x;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? std::atol(argv[1]) : 10;
	std::vector<double> v(1 << 16, 1.0);
	long thrown = 0;
	double sum = 0;

	{
		pfshim::region solve("solve");
		static const pfshim::handle step("step");

		for (long s = 1; s <= steps; s++) {
			pfshim::region r(step);
			for (double &x : v)
				sum += x *= 1.0000001;
			try {
				check(s, sum);
			} catch (const std::runtime_error &) {
				thrown++;
			}
		}
	}
	std::printf("sum %.3f, %ld exceptions, markers %s\n", sum, thrown,
		    pfshim::active() ? "active" : "inactive");
	return 0;
}
