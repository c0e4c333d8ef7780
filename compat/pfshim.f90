! SPDX-License-Identifier: MIT
! pfshim.f90: the marker API of pfshim.h for Fortran (docs/compat.md).
!
!   use pfshim
!   integer(pfshim_region_kind) :: solve
!   integer :: rc
!   solve = pfshim_region('solve')       ! once, outside the hot loop
!   rc = pfshim_begin(solve)
!   ...
!   rc = pfshim_end(solve)
!   rc = pfshim_region_begin('io')       ! by name: one lookup per call
!   rc = pfshim_region_end('io')
!
! Link the program with libpfshim_fortran.a (-lpfshim_fortran): it holds the
! weak references to libpfshim.so, so the program links and runs without it
! and every call returns PFSHIM_INACTIVE. Under LD_PRELOAD=libpfshim.so the
! regions are counted and reported as for a C program.
module pfshim
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: pfshim_region_kind = c_int32_t
  integer, parameter, public :: PFSHIM_MAX_EVENTS = 64
  integer, parameter, public :: PFSHIM_INACTIVE = -1   ! libpfshim.so absent or disabled
  integer, parameter, public :: PFSHIM_MISUSE = -2     ! end without begin, bad handle
  integer, parameter, public :: PFSHIM_FAILED = -3     ! counters could not be opened or read

  ! struct pfshim_counts: the calling thread's counts, in PFSHIM_EVENTS order.
  ! Values are unsigned in C; Fortran sees them as integer(c_int64_t).
  type, bind(c), public :: pfshim_counts
    integer(c_int) :: nr = 0
    integer(c_int64_t) :: value(PFSHIM_MAX_EVENTS) = 0
    integer(c_int64_t) :: enabled(PFSHIM_MAX_EVENTS) = 0
    integer(c_int64_t) :: running(PFSHIM_MAX_EVENTS) = 0
  end type pfshim_counts

  public :: pfshim_region, pfshim_begin, pfshim_end
  public :: pfshim_region_begin, pfshim_region_end
  public :: pfshim_read, pfshim_report, pfshim_active

  interface
    function c_region(name) bind(c, name='pfshim_f_region')
      import :: c_char, c_int32_t
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int32_t) :: c_region
    end function
    function c_begin(region) bind(c, name='pfshim_f_begin')
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: region
      integer(c_int) :: c_begin
    end function
    function c_end(region) bind(c, name='pfshim_f_end')
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: region
      integer(c_int) :: c_end
    end function
    function c_region_begin(name) bind(c, name='pfshim_f_region_begin')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_region_begin
    end function
    function c_region_end(name) bind(c, name='pfshim_f_region_end')
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_region_end
    end function
    function c_read(counts) bind(c, name='pfshim_f_read')
      import :: c_int, pfshim_counts
      type(pfshim_counts), intent(inout) :: counts
      integer(c_int) :: c_read
    end function
    function c_report() bind(c, name='pfshim_f_report')
      import :: c_int
      integer(c_int) :: c_report
    end function
    function c_active() bind(c, name='pfshim_f_active')
      import :: c_int
      integer(c_int) :: c_active
    end function
  end interface

contains

  ! The handle of region NAME (trailing blanks dropped); 0 when inactive or refused.
  function pfshim_region(name) result(h)
    character(len=*), intent(in) :: name
    integer(pfshim_region_kind) :: h
    h = c_region(trim(name) // c_null_char)
  end function

  ! Enter / leave a region by handle: 0, PFSHIM_INACTIVE, PFSHIM_MISUSE or PFSHIM_FAILED.
  integer function pfshim_begin(region)
    integer(pfshim_region_kind), intent(in) :: region
    pfshim_begin = c_begin(region)
  end function

  integer function pfshim_end(region)
    integer(pfshim_region_kind), intent(in) :: region
    pfshim_end = c_end(region)
  end function

  ! The same by name.
  integer function pfshim_region_begin(name)
    character(len=*), intent(in) :: name
    pfshim_region_begin = c_region_begin(trim(name) // c_null_char)
  end function

  integer function pfshim_region_end(name)
    character(len=*), intent(in) :: name
    pfshim_region_end = c_region_end(trim(name) // c_null_char)
  end function

  ! The calling thread's counts now: 0, PFSHIM_INACTIVE or PFSHIM_FAILED.
  integer function pfshim_read(counts)
    type(pfshim_counts), intent(inout) :: counts
    pfshim_read = c_read(counts)
  end function

  ! Write a report now (reason "explicit"): 0 or PFSHIM_INACTIVE.
  integer function pfshim_report()
    pfshim_report = c_report()
  end function

  ! .true. when libpfshim.so is loaded and counting.
  logical function pfshim_active()
    pfshim_active = c_active() /= 0
  end function

end module pfshim
