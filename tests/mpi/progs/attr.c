/* Attributes and keyvals: predefined attributes of MPI_COMM_WORLD, set/get/delete, copy callbacks on
 * MPI_Comm_dup and MPI_Type_dup (MPI_*_DUP_FN, NULL_COPY_FN, user functions, failures), delete callbacks on
 * set-over, delete, free and MPI_Finalize (newest first, MPI_COMM_SELF before MPI_COMM_WORLD), attributes
 * local to each rank on shared communicators and predefined datatypes, keyvals of the wrong kind or freed,
 * the MPI-1 names. Built privatized: the callbacks record what they see in globals, one copy per rank. */
#include "check_errors.h"

#include <pthread.h>
#include <string.h>

enum { MAX_EVENTS = 64 };
static int deleted[MAX_EVENTS]; /* values (as ints) given to delete callbacks, in call order */
static int ndeleted;
static int delete_keyval_seen, copy_calls;
static int delete_fails; /* the failing delete callback fails while this is set */
static MPI_Comm delete_comm_seen;
static int finalize_order[MAX_EVENTS], nfinalize, finalized_in_callback;

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra_state)
{
    if (ndeleted < MAX_EVENTS)
        deleted[ndeleted++] = (int)(MPI_Aint)value;
    delete_keyval_seen = keyval;
    delete_comm_seen = comm;
    CHECK(extra_state == (void *)&ndeleted);
    return MPI_SUCCESS;
}

static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra_state)
{
    (void)comm, (void)keyval, (void)value, (void)extra_state;
    return delete_fails ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Copies value + 1, and counts. */
static int increment_copy(MPI_Comm comm, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra_state;
    copy_calls++;
    *(void **)out = (void *)((MPI_Aint)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

/* Declines to copy. */
static int refuse_copy(MPI_Comm comm, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra_state, (void)in, (void)out;
    copy_calls++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 1;
    return MPI_ERR_OTHER;
}

/* Reads the attribute being deleted on the communicator being freed (MPICH's attrdeleteget expects it to
 * work). */
static int reading_delete(MPI_Comm comm, int keyval, void *value, void *extra_state)
{
    (void)value, (void)extra_state;
    void *got;
    int flag;
    CHECK(comm != MPI_COMM_NULL);
    CHECK(MPI_Comm_get_attr(comm, keyval, &got, &flag) == MPI_SUCCESS);
    return MPI_SUCCESS;
}

static int finalize_delete(MPI_Comm comm, int keyval, void *value, void *extra_state)
{
    (void)comm, (void)keyval, (void)extra_state;
    int flag = 1;
    MPI_Finalized(&flag);
    finalized_in_callback |= flag;
    if (nfinalize < MAX_EVENTS)
        finalize_order[nfinalize++] = (int)(MPI_Aint)value;
    return MPI_SUCCESS;
}

static void predefined(int size)
{
    int *v, flag;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767 && *v == 0x7fffffff);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    CHECK(flag && *v == MPI_PROC_NULL);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    CHECK(flag && *v == MPI_ANY_SOURCE);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(flag && *v == 1);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(flag && *v == size);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(flag && *v == 0);
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v == 0x7fffffff);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v == 0x7fffffff);
    /* MPI_LASTUSEDCODE follows the rank's own user codes. */
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v == MPI_ERR_LASTCODE);
    int cls, code;
    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v == cls);
    CHECK_OK(MPI_Add_error_code(cls, &code));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v == code && code > cls);
    /* Predefined attributes cannot change. */
    int keyval = MPI_TAG_UB;
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&keyval), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag), MPI_ERR_KEYVAL);
}

static void comm_attributes(int rank)
{
    int key_dup, key_null, key_inc, key_refuse, flag;
    void *got;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &key_dup, &ndeleted));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &key_null, &ndeleted));
    CHECK_OK(MPI_Comm_create_keyval(increment_copy, MPI_COMM_NULL_DELETE_FN, &key_inc, NULL));
    CHECK_OK(MPI_Comm_create_keyval(refuse_copy, record_delete, &key_refuse, &ndeleted));
    CHECK(key_dup != MPI_KEYVAL_INVALID && key_dup != key_null);

    MPI_Comm comm, dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_OK(MPI_Comm_get_attr(comm, key_dup, &got, &flag));
    CHECK(!flag);
    /* Each rank's value on the shared communicator is its own. */
    CHECK_OK(MPI_Comm_set_attr(comm, key_dup, (void *)(MPI_Aint)(100 + rank)));
    CHECK_OK(MPI_Comm_set_attr(comm, key_null, (void *)(MPI_Aint)(200 + rank)));
    CHECK_OK(MPI_Comm_set_attr(comm, key_inc, (void *)(MPI_Aint)(300 + rank)));
    CHECK_OK(MPI_Comm_set_attr(comm, key_refuse, (void *)(MPI_Aint)(400 + rank)));
    MPI_Barrier(comm);
    CHECK_OK(MPI_Comm_get_attr(comm, key_dup, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(100 + rank));
    if (rank == 0)
        CHECK_OK(MPI_Comm_delete_attr(comm, key_inc)); /* only rank 0's goes */
    MPI_Barrier(comm);
    CHECK_OK(MPI_Comm_get_attr(comm, key_inc, &got, &flag));
    CHECK(rank == 0 ? !flag : flag && got == (void *)(MPI_Aint)(300 + rank));
    if (rank == 0)
        CHECK_OK(MPI_Comm_set_attr(comm, key_inc, (void *)(MPI_Aint)300));

    /* Set over a value: the old value's delete callback runs. */
    ndeleted = 0;
    CHECK_OK(MPI_Comm_set_attr(comm, key_null, (void *)(MPI_Aint)(250 + rank)));
    CHECK(ndeleted == 1 && deleted[0] == 200 + rank && delete_keyval_seen == key_null && delete_comm_seen == comm);

    /* MPI_Comm_dup: DUP_FN copies, NULL_COPY_FN does not, user functions decide. */
    copy_calls = 0;
    CHECK_OK(MPI_Comm_dup(comm, &dup));
    CHECK(copy_calls == 2);
    CHECK_OK(MPI_Comm_get_attr(dup, key_dup, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(100 + rank));
    CHECK_OK(MPI_Comm_get_attr(dup, key_null, &got, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Comm_get_attr(dup, key_inc, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(301 + rank));
    CHECK_OK(MPI_Comm_get_attr(dup, key_refuse, &got, &flag));
    CHECK(!flag);

    /* A freed keyval: its attributes live on and their callbacks still run with it; until they are gone,
     * its handle is not reused and still reads them (as in MPICH). */
    int old_key_dup = key_dup;
    CHECK_OK(MPI_Comm_free_keyval(&key_dup));
    CHECK(key_dup == MPI_KEYVAL_INVALID);
    int fresh_key;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &fresh_key, NULL));
    CHECK(fresh_key != old_key_dup);
    CHECK_OK(MPI_Comm_free_keyval(&fresh_key));
    CHECK_OK(MPI_Comm_get_attr(comm, old_key_dup, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(100 + rank));
    CHECK_CLASS(MPI_Comm_free_keyval(&key_dup), MPI_ERR_KEYVAL); /* MPI_KEYVAL_INVALID */
    /* Freeing it again while attributes use it is a no-op (MPICH does so; its keyval_double_free tests). */
    int stale = old_key_dup;
    CHECK_OK(MPI_Comm_free_keyval(&stale));
    CHECK(stale == MPI_KEYVAL_INVALID);

    /* MPI_Comm_free deletes the caller's attributes, newest first. */
    ndeleted = 0;
    CHECK_OK(MPI_Comm_free(&dup)); /* only key_dup's copy has a delete callback there */
    CHECK(ndeleted == 1 && deleted[0] == 100 + rank && delete_keyval_seen == old_key_dup);
    ndeleted = 0;
    CHECK_OK(MPI_Comm_free(&comm));
    /* Set order: dup (100), null (200, replaced by 250 in place), inc (300, no delete fn), refuse (400);
     * rank 0 deleted inc and set it again (no delete fn either). */
    CHECK(ndeleted == 3 && deleted[0] == 400 + rank && deleted[1] == 250 + rank && deleted[2] == 100 + rank);

    CHECK_OK(MPI_Comm_free_keyval(&key_null));
    CHECK_OK(MPI_Comm_free_keyval(&key_inc));
    CHECK_OK(MPI_Comm_free_keyval(&key_refuse));
}

static void callback_failures(void)
{
    int key_del, key_copy, key_read, flag;
    void *got;
    MPI_Comm comm, dup;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &key_del, NULL));
    CHECK_OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &key_copy, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, reading_delete, &key_read, NULL));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_OK(MPI_Comm_set_attr(comm, key_del, (void *)1));
    delete_fails = 1;
    /* A failing delete callback fails set-over, delete and free, and the attribute stays. */
    CHECK_CLASS(MPI_Comm_set_attr(comm, key_del, (void *)2), MPI_ERR_OTHER);
    CHECK_CLASS(MPI_Comm_delete_attr(comm, key_del), MPI_ERR_OTHER);
    CHECK_OK(MPI_Comm_get_attr(comm, key_del, &got, &flag));
    CHECK(flag && got == (void *)1);
    MPI_Comm keep = comm;
    CHECK_CLASS(MPI_Comm_free(&comm), MPI_ERR_OTHER);
    CHECK(comm == keep);
    delete_fails = 0;
    /* A failing copy callback fails MPI_Comm_dup, which returns MPI_COMM_NULL. */
    CHECK_OK(MPI_Comm_set_attr(comm, key_copy, (void *)3));
    dup = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_dup(comm, &dup), MPI_ERR_OTHER);
    CHECK(dup == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_delete_attr(comm, key_copy));
    /* A delete callback may read attributes of the communicator being freed. */
    CHECK_OK(MPI_Comm_set_attr(comm, key_read, (void *)4));
    CHECK_OK(MPI_Comm_free(&comm));
    CHECK(comm == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_free_keyval(&key_del));
    CHECK_OK(MPI_Comm_free_keyval(&key_copy));
    CHECK_OK(MPI_Comm_free_keyval(&key_read));
}

static void type_attributes(int rank)
{
    int key, key_fail, comm_key, win_key, flag;
    void *got;
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, (MPI_Type_delete_attr_function *)record_delete, &key,
                                    &ndeleted));
    CHECK_OK(MPI_Type_create_keyval((MPI_Type_copy_attr_function *)failing_copy, MPI_TYPE_NULL_DELETE_FN, &key_fail,
                                    NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_key, NULL));

    MPI_Datatype vec, dup, dup2;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_get_attr(vec, key, &got, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Type_set_attr(vec, key, (void *)(MPI_Aint)(500 + rank)));
    CHECK_OK(MPI_Type_dup(vec, &dup));
    CHECK_OK(MPI_Type_get_attr(dup, key, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(500 + rank));
    /* Kinds must match; a freed keyval is invalid. */
    CHECK_CLASS(MPI_Type_set_attr(vec, comm_key, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_set_attr(vec, win_key, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, win_key, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_free_keyval(&comm_key), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Win_free_keyval(&comm_key), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_DATATYPE_NULL, key, &got, &flag), MPI_ERR_TYPE);

    /* MPI_Type_free runs the delete callback of the freed handle's attributes only. */
    ndeleted = 0;
    CHECK_OK(MPI_Type_free(&vec));
    CHECK(ndeleted == 1 && deleted[0] == 500 + rank);
    CHECK_OK(MPI_Type_get_attr(dup, key, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(500 + rank));
    /* A new type that reuses the freed handle has no attribute. */
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_get_attr(vec, key, &got, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Type_free(&vec));

    /* A failing copy callback: no duplicate. */
    CHECK_OK(MPI_Type_set_attr(dup, key_fail, (void *)7));
    dup2 = MPI_INT;
    CHECK_CLASS(MPI_Type_dup(dup, &dup2), MPI_ERR_OTHER);
    CHECK(dup2 == MPI_DATATYPE_NULL);
    CHECK_OK(MPI_Type_delete_attr(dup, key_fail));
    CHECK_OK(MPI_Type_get_attr(dup, key_fail, &got, &flag));
    CHECK(!flag);
    ndeleted = 0;
    CHECK_OK(MPI_Type_free(&dup));
    CHECK(ndeleted == 1);

    /* Predefined datatypes are shared by the ranks of a process, their attributes are not. */
    CHECK_OK(MPI_Type_set_attr(MPI_INT, key, (void *)(MPI_Aint)(600 + rank)));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_Type_get_attr(MPI_INT, key, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(600 + rank));
    MPI_Barrier(MPI_COMM_WORLD);
    ndeleted = 0;
    CHECK_OK(MPI_Type_delete_attr(MPI_INT, key));
    CHECK(ndeleted == 1 && deleted[0] == 600 + rank);
    CHECK_OK(MPI_Type_get_attr(MPI_INT, key, &got, &flag));
    CHECK(!flag);

    CHECK_OK(MPI_Type_free_keyval(&key));
    CHECK_OK(MPI_Type_free_keyval(&key_fail));
    CHECK_OK(MPI_Comm_free_keyval(&comm_key));
    CHECK_OK(MPI_Win_free_keyval(&win_key));
    CHECK(win_key == MPI_KEYVAL_INVALID);
}

static void mpi1_names(int rank)
{
    int key, flag;
    void *got;
    CHECK_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &key, NULL));
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, key, (void *)(MPI_Aint)(700 + rank)));
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(700 + rank));
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_get_attr(dup, key, &got, &flag));
    CHECK(flag && got == (void *)(MPI_Aint)(700 + rank));
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK_OK(MPI_Attr_delete(MPI_COMM_WORLD, key));
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
    /* MPI_DUP_FN is MPIR_Dup_fn. */
    void *out = NULL;
    flag = 0;
    CHECK(MPIR_Dup_fn(MPI_COMM_WORLD, 0, NULL, (void *)42, &out, &flag) == MPI_SUCCESS);
    CHECK(flag == 1 && out == (void *)42);
}

/* MPI_THREAD_MULTIPLE: threads of one rank set, read and delete attributes on one communicator and add
 * error codes at the same time; each thread's values stay its own and nothing is lost. */
enum { THREADS = 4, ROUNDS = 300 };
static MPI_Comm threads_comm;
static int thread_codes[THREADS][ROUNDS], thread_class[THREADS];

static void *attr_thread(void *arg)
{
    int t = (int)(MPI_Aint)arg, key, flag, cls;
    void *got;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_OK(MPI_Add_error_class(&cls));
    thread_class[t] = cls;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_OK(MPI_Comm_set_attr(threads_comm, key, (void *)(MPI_Aint)(t * ROUNDS + i)));
        CHECK_OK(MPI_Comm_get_attr(threads_comm, key, &got, &flag));
        CHECK(flag && got == (void *)(MPI_Aint)(t * ROUNDS + i));
        CHECK_OK(MPI_Add_error_code(cls, &thread_codes[t][i]));
        if (i % 3 == 0)
            CHECK_OK(MPI_Comm_delete_attr(threads_comm, key));
    }
    CHECK_OK(MPI_Comm_free_keyval(&key));
    return NULL;
}

static void threads(void)
{
    int provided;
    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &threads_comm));
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&tid[t], NULL, attr_thread, (void *)(MPI_Aint)t) == 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    /* Every code is distinct and has its thread's class. */
    int last = 0;
    for (int t = 0; t < THREADS; t++) {
        last = thread_class[t] > last ? thread_class[t] : last;
        for (int i = 0; i < ROUNDS; i++) {
            int cls;
            CHECK_OK(MPI_Error_class(thread_codes[t][i], &cls));
            CHECK(cls == thread_class[t]);
            last = thread_codes[t][i] > last ? thread_codes[t][i] : last;
            for (int u = 0; u < t; u++)
                CHECK(thread_codes[u][i] != thread_codes[t][i]);
        }
    }
    int *lastused, flag;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK(flag && *lastused == last);
    CHECK_OK(MPI_Comm_free(&threads_comm)); /* the attributes left by the threads go without callbacks */
}

int main(int argc, char **argv)
{
    int rank, size;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    predefined(size);
    comm_attributes(rank);
    callback_failures();
    type_attributes(rank);
    mpi1_names(rank);
    threads();

    /* At MPI_Finalize: MPI_COMM_SELF's attributes, newest first, then MPI_COMM_WORLD's; the keyvals may be
     * freed before. */
    int keys[6];
    for (int i = 0; i < 6; i++) {
        CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &keys[i], NULL));
        CHECK_OK(MPI_Comm_set_attr(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, keys[i], (void *)(MPI_Aint)i));
    }
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Comm_free_keyval(&keys[i]));
    MPI_Finalize();
    static const int expected[6] = {4, 2, 0, 5, 3, 1};
    if (nfinalize != 6 || memcmp(finalize_order, expected, sizeof expected) != 0 || finalized_in_callback) {
        printf("rank %d: MPI_Finalize ran %d delete callbacks (order %d %d %d %d %d %d, finalized %d)\n", rank,
               nfinalize, finalize_order[0], finalize_order[1], finalize_order[2], finalize_order[3],
               finalize_order[4], finalize_order[5], finalized_in_callback);
        return 1;
    }
    return 0;
}
