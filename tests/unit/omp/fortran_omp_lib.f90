! The Fortran omp_lib entry points (omp_get_thread_num_ ...), called the way gfortran calls them, on
! mpcrt: built with gfortran -fopenmp and linked to libmpcrt as libgomp. Each check that fails prints
! its number; the last line counts them (the test passes on "0 failed").
program fortran_omp_lib
  use omp_lib
  implicit none
  integer :: failures, nthreads, sum_ids, counter, i, in_par, kind_chunk, levels
  integer(omp_lock_kind) :: lock
  integer(omp_nest_lock_kind) :: nlock
  integer(omp_sched_kind) :: kind
  integer :: chunk
  integer(8) :: chunk8
  double precision :: t0, t1
  character(len=32) :: fmt
  integer :: fmt_len

  failures = 0

  call omp_set_dynamic(.false.)
  call check(1, .not. omp_get_dynamic())
  call omp_set_num_threads(3)
  call check(2, omp_get_max_threads() == 3)
  call check(3, .not. omp_in_parallel())
  call check(4, omp_get_thread_num() == 0 .and. omp_get_num_threads() == 1)

  nthreads = 0
  sum_ids = 0
  in_par = 0
  !$omp parallel reduction(+: sum_ids, in_par) shared(nthreads)
  sum_ids = sum_ids + omp_get_thread_num()
  if (omp_in_parallel() .and. omp_get_level() == 1 .and. omp_get_team_size(1) == 3 &
      .and. omp_get_ancestor_thread_num(1) == omp_get_thread_num()) in_par = in_par + 1
  !$omp single
  nthreads = omp_get_num_threads()
  !$omp end single
  !$omp end parallel
  call check(5, nthreads == 3)
  call check(6, sum_ids == 3)
  call check(7, in_par == 3)

  ! integer(8) forms of the generic interfaces (the _8_ entry points)
  call omp_set_num_threads(2_8)
  call check(8, omp_get_max_threads() == 2)

  ! simple lock: the Fortran variable holds the lock itself
  call omp_init_lock(lock)
  counter = 0
  !$omp parallel num_threads(4) private(i) shared(counter, lock)
  do i = 1, 1000
    call omp_set_lock(lock)
    counter = counter + 1
    call omp_unset_lock(lock)
  end do
  !$omp end parallel
  call check(9, counter == 4000)
  call check(10, omp_test_lock(lock))
  call check(11, .not. omp_test_lock(lock))
  call omp_unset_lock(lock)
  call omp_destroy_lock(lock)

  ! nestable lock: the variable holds a pointer to the runtime's lock
  call omp_init_nest_lock(nlock)
  call omp_set_nest_lock(nlock)
  call omp_set_nest_lock(nlock)
  call check(12, omp_test_nest_lock(nlock) == 3)
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
  call omp_destroy_nest_lock(nlock)

  call omp_set_schedule(omp_sched_dynamic, 5)
  call omp_get_schedule(kind, chunk)
  call check(13, kind == omp_sched_dynamic .and. chunk == 5)
  call omp_set_schedule(omp_sched_guided, 7_8)
  call omp_get_schedule(kind, chunk8)
  kind_chunk = int(chunk8)
  call check(14, kind == omp_sched_guided .and. kind_chunk == 7)

  call omp_set_max_active_levels(3)
  levels = omp_get_max_active_levels()
  call check(15, levels == 3)

  t0 = omp_get_wtime()
  t1 = omp_get_wtime()
  call check(16, t1 >= t0 .and. omp_get_wtick() > 0d0)

  call omp_set_affinity_format("T%n")
  fmt_len = omp_get_affinity_format(fmt)
  call check(17, fmt_len == 3 .and. fmt == "T%n")

  call check(18, omp_get_num_devices() == 0 .and. omp_is_initial_device())
  call check(19, omp_get_num_procs() >= 1 .and. omp_get_thread_limit() >= 1)
  call check(20, omp_get_supported_active_levels() >= 1 .and. .not. omp_in_final())

  print '(a, i0, a)', 'fortran omp_lib: ', failures, ' failed'
  if (failures /= 0) stop 1

contains

  subroutine check(n, ok)
    integer, intent(in) :: n
    logical, intent(in) :: ok
    if (.not. ok) then
      print '(a, i0, a)', 'check ', n, ' failed'
      failures = failures + 1
    end if
  end subroutine check

end program fortran_omp_lib
