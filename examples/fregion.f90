! SPDX-License-Identifier: MIT
! fregion [STEPS]: the Fortran module pfshim on a small loop.
! Region "setup" by name, "step" by handle around each of STEPS steps
! (default 10) with "inner" nested inside, a read of the thread's counts,
! and an explicit report. Without libpfshim.so every call returns
! PFSHIM_INACTIVE and the program's output is the same but the last line.
program fregion
  use pfshim
  implicit none
  integer(pfshim_region_kind) :: step
  type(pfshim_counts) :: counts
  integer :: s, steps, rc, nbad
  character(len=32) :: arg
  real(8), allocatable :: v(:)
  real(8) :: total

  steps = 10
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  nbad = 0

  rc = pfshim_region_begin('setup')
  allocate (v(1 : 2**16))
  v = 1.0d0
  if (pfshim_region_end('setup') /= rc) nbad = nbad + 1

  step = pfshim_region('step')
  total = 0
  do s = 1, steps
    if (pfshim_begin(step) /= rc) nbad = nbad + 1
    v = v * 1.0000001d0
    if (pfshim_region_begin('inner') /= rc) nbad = nbad + 1
    total = total + sum(v)
    if (pfshim_region_end('inner') /= rc) nbad = nbad + 1
    if (pfshim_end(step) /= rc) nbad = nbad + 1
  end do

  write (*, '(a, f0.3, a, i0)') 'total ', total, ', unexpected returns ', nbad
  if (pfshim_read(counts) == 0) then
    write (*, '(a, i0, a)') 'markers active, ', counts%nr, ' events'
  else if (pfshim_report() == PFSHIM_INACTIVE .and. .not. pfshim_active()) then
    write (*, '(a)') 'markers inactive'
  end if
  if (pfshim_active()) rc = pfshim_report()
end program fregion
