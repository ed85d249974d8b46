/* Privatization of C globals: every rank writes rank-specific values into every kind of global, all
 * ranks synchronize, and each checks that it still sees its own values (with shared globals the last
 * writer wins and the checks fail: the same program built without -fmpc-privatize must fail). */
#include <mpi.h>
#include <string.h>

#include "check.h"

int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));

int g_init = 5;                                     /* initialized global */
int g_zero;                                         /* zero-initialized global (.bss.mpc_privz) */
static int s_static = 3;                            /* file-scope static */
int arr[100] = {[1] = 11, [2] = 22};                /* array with designated initializers */
struct record { int a; double b; char name[16]; } st = {1, 2.0, "initial"};
int *ptr = &g_init;                                 /* pointer to privatized data in an initializer */
int *ptrs[3] = {&arr[1], &arr[2], &g_zero};         /* ... in an array initializer */
struct holder { int tag; int *p; } holder = {7, &s_static}; /* ... inside a struct */
static double big[1 << 18];                         /* 2 MiB of zeros: copy-on-write, no file bloat */
__thread int tl = 11;                               /* ex-__thread: one copy per user-level thread */
extern int maybe __attribute__((weak));             /* weak, never defined: &maybe stays NULL */
int weak_def __attribute__((weak)) = 9;             /* weak and defined */
const int constant = 42;                            /* const: shared, never privatized */

extern int other_value;                             /* defined in priv_c_other.c */
int other_get(void);
void other_set(int value);
int *other_address(void);

static int next_id(void)
{
    static int id = 100; /* function-local static */
    return id++;
}

/* A large local initializer of addresses: at -Os GCC keeps its image in the constant pool. */
static int image_points_to_copies(int rank)
{
    int *local[8] = {&g_init, &arr[0], &arr[1], &g_zero, &s_static, &arr[3], &arr[4], &arr[5]};
    int ok = local[0] == &g_init && local[3] == &g_zero && local[4] == &s_static;
    (void)rank;
    return ok;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Every rank starts from the program's initial image. */
    CHECK(rank, g_init == 5 && g_zero == 0 && s_static == 3 && arr[1] == 11 && arr[2] == 22);
    CHECK(rank, st.a == 1 && st.b == 2.0 && strcmp(st.name, "initial") == 0);
    CHECK(rank, ptr == &g_init && *ptr == 5);
    CHECK(rank, ptrs[0] == &arr[1] && ptrs[1] == &arr[2] && ptrs[2] == &g_zero);
    CHECK(rank, holder.p == &s_static && holder.tag == 7);
    CHECK(rank, tl == 11 && weak_def == 9 && other_value == 1000 && other_get() == 1000);
    CHECK(rank, &maybe == NULL);
    CHECK(rank, image_points_to_copies(rank));
    CHECK(rank, next_id() == 100);

    /* Each rank writes its own values... */
    g_init = 1000 + rank;
    g_zero = 2000 + rank;
    s_static = 3000 + rank;
    for (int i = 0; i < 100; i++)
        arr[i] = rank * 100 + i;
    st.a = rank;
    st.b = rank * 0.5;
    snprintf(st.name, sizeof st.name, "rank%d", rank);
    holder.tag = rank;
    big[(1 << 18) - 1] = rank;
    big[rank] = rank + 1;
    tl = 4000 + rank;
    weak_def = 5000 + rank;
    other_set(6000 + rank);
    MPI_Barrier(MPI_COMM_WORLD); /* ...every rank has written... */
    MPI_Barrier(MPI_COMM_WORLD);

    /* ...and still sees only its own. */
    CHECK(rank, g_init == 1000 + rank && *ptr == 1000 + rank);
    CHECK(rank, g_zero == 2000 + rank && *ptrs[2] == 2000 + rank);
    CHECK(rank, s_static == 3000 + rank && *holder.p == 3000 + rank && holder.tag == rank);
    int arr_ok = 1;
    for (int i = 0; i < 100; i++)
        arr_ok &= arr[i] == rank * 100 + i;
    CHECK(rank, arr_ok && *ptrs[0] == rank * 100 + 1);
    char expected[16];
    snprintf(expected, sizeof expected, "rank%d", rank);
    CHECK(rank, st.a == rank && st.b == rank * 0.5 && strcmp(st.name, expected) == 0);
    CHECK(rank, big[(1 << 18) - 1] == rank && big[rank] == rank + 1 && (size == 1 || big[(rank + 1) % size] == 0));
    CHECK(rank, tl == 4000 + rank && weak_def == 5000 + rank);
    CHECK(rank, other_value == 6000 + rank && other_get() == 6000 + rank && other_address() == &other_value);
    CHECK(rank, next_id() == 101 && constant == 42);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d checks, %d failures\n", size, priv_checks, priv_failures);
    MPI_Finalize();
    return priv_failures != 0;
}
