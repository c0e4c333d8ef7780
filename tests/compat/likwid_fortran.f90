! SPDX-License-Identifier: MIT
! likwid_fortran: a Fortran program instrumented with LIKWID's own Fortran
! module (use likwid), linked against Debian's liblikwid. Region "work" 4
! times with "inner" nested. liblikwid's Fortran wrappers call its C marker
! functions through the PLT, so libpfshim-compat.so takes them over too.
program likwid_fortran
  use likwid
  implicit none
  integer :: i
  real(8) :: s
  s = 0
  call likwid_markerInit()
  call likwid_markerThreadInit()
  do i = 1, 4
    call likwid_markerStartRegion("work")
    call likwid_markerStartRegion("inner")
    s = s + sqrt(real(i, 8))
    call likwid_markerStopRegion("inner")
    call likwid_markerStopRegion("work")
  end do
  call likwid_markerClose()
  write (*, '(a, f0.3)') 'sum ', s
end program likwid_fortran
