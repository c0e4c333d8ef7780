# SPDX-License-Identifier: MIT
# deb: owned by packaging/. `make deb` builds Debian packages of pfshim
# (libpfshim1, pfshim, libpfshim-dev, python3-pfshim) with dpkg-deb and runs lintian on them;
# docs/install.md says what goes where.

DEB_B         := $(BUILD)/deb
# The project's contact and home page, written here only: the Maintainer and
# Homepage fields, the changelog's trailer and copyright's Upstream-Contact
# take them from these. A distributor building their own sets both:
# make deb DEB_MAINTAINER='Name <address>' DEB_HOMEPAGE=https://...
DEB_MAINTAINER ?= pfshim maintainers <maintainers@pfshim.org>
DEB_HOMEPAGE   ?= https://pfshim.org/
# exported, not quoted into the command: a name may have a ' (deb.sh checks them)
export DEB_MAINTAINER DEB_HOMEPAGE
DEB_MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
# Debian's hardening flags; the package is built apart, in $(DEB_B)/build.
DEB_CFLAGS    := $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS 2>/dev/null) \
	$(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS 2>/dev/null)
DEB_LDFLAGS   := $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS 2>/dev/null)

.PHONY: deb deb-deps
deb-deps:
	$(Q)tests/deps.sh dpkg-dev lintian gfortran libjansson-dev pkg-config

# The version in packaging/changelog must be VERSION's: lintian reads it there.
deb: deb-deps
	$(Q)grep -q '^pfshim ($(PFSHIM_VERSION))' packaging/changelog || \
		{ echo "make deb: packaging/changelog has no entry for $(PFSHIM_VERSION)"; exit 1; }
	$(Q)rm -rf $(DEB_B) && mkdir -p $(DEB_B)
	$(Q)$(MAKE) --no-print-directory BUILD=$(DEB_B)/build PREFIX=/usr \
		LIBDIR=/usr/lib/$(DEB_MULTIARCH) DESTDIR=$(abspath $(DEB_B)/stage) \
		CFLAGS="$(DEB_CFLAGS)" LDFLAGS="$(DEB_LDFLAGS)" MPICC=no-mpicc install >$(DEB_B)/build.log
	$(Q)packaging/deb.sh $(abspath $(DEB_B)/stage) $(abspath $(DEB_B)) $(PFSHIM_VERSION) $(DEB_MULTIARCH)
	$(Q)lintian --fail-on error $(DEB_B)/*.deb
