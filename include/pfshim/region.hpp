/* SPDX-License-Identifier: MIT */
/*
 * pfshim/region.hpp: the marker API as a C++ scope. Header-only; like
 * pfshim.h, a program built with it needs no library to link or run, and
 * every call is a no-op when libpfshim.so is not preloaded.
 *
 *	#include <pfshim/region.hpp>
 *
 *	{
 *		pfshim::region r("solve");	// begins here
 *		...
 *	}					// ends here, also when an exception leaves
 *
 * A pfshim::handle names a region once (one lookup); a region built from it
 * costs no hashing, for hot loops:
 *
 *	static const pfshim::handle step("step");
 *	for (...) { pfshim::region r(step); ... }
 */
#ifndef PFSHIM_REGION_HPP
#define PFSHIM_REGION_HPP

#include <pfshim.h>

namespace pfshim {

/* A region's interned handle; 0 (inactive or refused) makes every use a no-op. */
class handle {
public:
	explicit handle(const char *name) noexcept : id_(pfshim_region(name)) {}
	pfshim_region_t id() const noexcept { return id_; }

private:
	pfshim_region_t id_;
};

/*
 * region - begin a region now, end it when the object is destroyed: at scope
 * exit, return, or stack unwinding. Not copyable or movable: one object is one
 * begin/end pair in the thread that made it.
 */
class region {
public:
	explicit region(const char *name) noexcept : id_(pfshim_region(name))
	{
		status_ = pfshim_begin(id_);
	}
	explicit region(const handle &h) noexcept : id_(h.id())
	{
		status_ = pfshim_begin(id_);
	}
	~region() { pfshim_end(id_); }

	region(const region &) = delete;
	region &operator=(const region &) = delete;

	/* what pfshim_begin returned: 0, PFSHIM_INACTIVE, PFSHIM_MISUSE or PFSHIM_FAILED */
	int status() const noexcept { return status_; }

private:
	pfshim_region_t id_;
	int status_;
};

/* The calling thread's counts now; 0, PFSHIM_INACTIVE or PFSHIM_FAILED. */
inline int read(pfshim_counts &counts) noexcept { return pfshim_read(&counts); }

/* Write a report now (reason "explicit"); 0 or PFSHIM_INACTIVE. */
inline int report() noexcept { return pfshim_report(); }

/* True when libpfshim.so is loaded and counting. */
inline bool active() noexcept { return pfshim_active() != 0; }

} /* namespace pfshim */

#endif
