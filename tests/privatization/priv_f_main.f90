! Privatization of Fortran data: module variables, a COMMON block shared with another file, and a SAVE
! local. Every rank writes its own values, all synchronize, each checks it still sees its own.
module state
  implicit none
  integer :: counter = 5
  real(8) :: values(10) = 0d0
end module state

subroutine bump(n)
  implicit none
  integer, intent(out) :: n
  integer, save :: calls = 0
  calls = calls + 1
  n = calls
end subroutine bump

program priv_f
  use iso_c_binding
  use state
  implicit none
  interface
    integer(c_int) function ft_rank() bind(C, name="ft_rank")
      import :: c_int
    end function ft_rank
    subroutine ft_barrier() bind(C, name="ft_barrier")
    end subroutine ft_barrier
    subroutine ft_finish(failures) bind(C, name="ft_finish")
      import :: c_int
      integer(c_int), value :: failures
    end subroutine ft_finish
    integer function get_a()
    end function get_a
  end interface
  integer :: a, b
  common /blk/ a, b
  integer :: rank, n, failures

  failures = 0
  rank = ft_rank()
  if (counter /= 5 .or. values(3) /= 0d0) failures = failures + 1
  counter = 100 + rank
  values(3) = rank
  a = 200 + rank
  call set_b(300 + rank)
  call bump(n)
  if (n /= 1) failures = failures + 1
  call ft_barrier()
  call ft_barrier()
  if (counter /= 100 + rank) failures = failures + 1
  if (values(3) /= rank) failures = failures + 1
  if (a /= 200 + rank .or. b /= 300 + rank) failures = failures + 1
  if (get_a() /= 200 + rank) failures = failures + 1
  call bump(n)
  if (n /= 2) failures = failures + 1
  call ft_finish(failures)
end program priv_f
