! The second file of priv_f: the COMMON block /blk/ seen from another translation unit.
subroutine set_b(v)
  implicit none
  integer :: v, a, b
  common /blk/ a, b
  b = v
end subroutine set_b

integer function get_a()
  implicit none
  integer :: a, b
  common /blk/ a, b
  get_a = a
end function get_a
