/* The datatype engine under concurrency (meant for TSan too): kernel threads build, commit, decode, pack
 * and free their own types while sharing others: packing a shared type, counting partial elements of a
 * shared mixed type (whose per-element layout is built lazily by whichever thread comes first), renaming
 * it, duplicating it, and decoding it into new handles. */
#include "dt_test_util.h"

#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 300 };

static MPI_Datatype shared_mixed, shared_vector;
static _Atomic int failures;

static void check(bool ok)
{
    if (!ok)
        atomic_fetch_add(&failures, 1);
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    int src[64], dst[64];
    for (int i = 0; i < 64; i++)
        src[i] = me * 1000 + i;
    for (int round = 0; round < ROUNDS; round++) {
        /* a private type: build, commit, pack, unpack, decode, free */
        MPI_Datatype v, s, inner[2];
        int stride = 2 + (round % 3);
        check(MPI_Type_vector(4, 2, stride, MPI_INT, &v) == MPI_SUCCESS);
        int bl[] = {1, 1};
        MPI_Aint disp[] = {0, 4 * (4 * stride + 2)};
        MPI_Datatype types[] = {v, MPI_INT};
        check(MPI_Type_create_struct(2, bl, disp, types, &s) == MPI_SUCCESS);
        check(MPI_Type_commit(&s) == MPI_SUCCESS);
        int packed[9], pos = 0;
        check(MPI_Pack(src, 1, s, packed, sizeof packed, &pos, MPI_COMM_SELF) == MPI_SUCCESS);
        check(pos == 36);
        check(packed[2] == src[stride] && packed[8] == src[4 * stride + 2]);
        memset(dst, 0, sizeof dst);
        pos = 0;
        check(MPI_Unpack(packed, 36, &pos, dst, 1, s, MPI_COMM_SELF) == MPI_SUCCESS);
        check(dst[stride + 1] == src[stride + 1] && dst[1 + stride * 0] == src[1]);
        int ints[3];
        MPI_Aint aints[2];
        check(MPI_Type_get_contents(s, 3, 2, 2, ints, aints, inner) == MPI_SUCCESS);
        check(inner[1] == MPI_INT && inner[0] != v);
        check(MPI_Type_free(&inner[0]) == MPI_SUCCESS);
        check(MPI_Type_free(&v) == MPI_SUCCESS);
        check(MPI_Type_free(&s) == MPI_SUCCESS);

        /* the shared types */
        MPI_Status status;
        memset(&status, 0, sizeof status);
        check(MPI_Status_set_elements(&status, MPI_BYTE, 15 + 4 + 8) == MPI_SUCCESS);
        int elements = -1;
        check(MPI_Get_elements(&status, shared_mixed, &elements) == MPI_SUCCESS);
        check(elements == 7);
        pos = 0;
        check(MPI_Pack(src, 2, shared_vector, packed, sizeof packed, &pos, MPI_COMM_SELF) == MPI_SUCCESS);
        check(packed[0] == src[0] && packed[1] == src[3] && packed[3] == src[7]);
        char name[MPI_MAX_OBJECT_NAME];
        snprintf(name, sizeof name, "renamed by %d", me);
        check(MPI_Type_set_name(shared_mixed, name) == MPI_SUCCESS);
        int len;
        check(MPI_Type_get_name(shared_mixed, name, &len) == MPI_SUCCESS);
        check(strncmp(name, "renamed by ", 11) == 0);
        MPI_Datatype d;
        check(MPI_Type_dup(shared_vector, &d) == MPI_SUCCESS);
        check(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, inner) == MPI_SUCCESS);
        check(inner[0] != shared_vector);
        check(MPI_Type_free(&inner[0]) == MPI_SUCCESS);
        check(MPI_Type_free(&d) == MPI_SUCCESS);
    }
    return NULL;
}

static void threads_share_and_build_types(void **state)
{
    (void)state;
    long live = mpcrt_handle_count(MPCRT_OBJ_DATATYPE);
    int bl[] = {1, 1, 3};
    MPI_Aint disp[] = {0, 8, 16};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, disp, types, &shared_mixed);
    MPI_Type_commit(&shared_mixed);
    MPI_Type_vector(2, 1, 3, MPI_INT, &shared_vector);
    MPI_Type_commit(&shared_vector);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    assert_int_equal(atomic_load(&failures), 0);
    MPI_Type_free(&shared_mixed);
    MPI_Type_free(&shared_vector);
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_DATATYPE), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_share_and_build_types),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
