/* The MPI tool information interface in an MPI job: usable before MPI_Init and after MPI_Finalize, nested
 * in each rank, reading the settings in effect (the test runs it with MPCRT_EAGER_LIMIT=12345, and mpcrun
 * sets MPCRT_RANKS_PER_PROC), returning error codes instead of running MPI_ERRORS_ARE_FATAL, and called
 * from several threads of each rank at once. Usage: tools RANKS_PER_PROC. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* MPI_Abort needs MPI: outside MPI_Init..MPI_Finalize a failed check exits, which ends the job too. */
#define CHECK_T(cond)                                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

enum { THREADS = 4, ROUNDS = 100 };

static unsigned long long read_size(const char *name)
{
    int idx, count;
    MPI_Datatype type;
    MPI_T_cvar_handle h;
    unsigned long long value = 0;
    CHECK_T(MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS);
    CHECK_T(type == MPI_UNSIGNED_LONG_LONG);
    CHECK_T(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    CHECK_T(MPI_T_cvar_read(h, &value) == MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL);
    return value;
}

static int read_int(const char *name)
{
    int idx, count, value = -1;
    MPI_Datatype type;
    MPI_T_cvar_handle h;
    CHECK_T(MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS);
    CHECK_T(type == MPI_INT);
    CHECK_T(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    CHECK_T(MPI_T_cvar_read(h, &value) == MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS);
    return value;
}

static void *tool_thread(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        int provided;
        MPI_T_pvar_session s;
        CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
        CHECK_T(read_size("MPCRT_EAGER_LIMIT") == 12345);
        CHECK_T(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
        CHECK_T(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
        CHECK_T(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
        CHECK_T(MPI_T_finalize() == MPI_SUCCESS);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_T(argc == 2);
    int ranks_per_proc = atoi(argv[1]);
    int provided = -1, num = -1;

    /* before MPI_Init */
    CHECK_T(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS);
    CHECK_T(provided == MPI_THREAD_MULTIPLE);
    CHECK_T(read_size("MPCRT_EAGER_LIMIT") == 12345);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* nested in the one opened before MPI_Init */
    CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    CHECK_T(read_int("MPCRT_RANKS_PER_PROC") == ranks_per_proc);
    CHECK_T(MPI_T_cvar_get_num(&num) == MPI_SUCCESS && num > 20);
    /* errors are returned: MPI_ERRORS_ARE_FATAL (the default) is not run */
    MPI_T_cvar_handle h;
    int count, value;
    CHECK_T(MPI_T_cvar_handle_alloc(num, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &value) == MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
    CHECK_T(MPI_T_cvar_get_index("MPCRT_NOTHING", &value) == MPI_T_ERR_INVALID_NAME);

    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_T(pthread_create(&threads[i], NULL, tool_thread, NULL) == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK_T(pthread_join(threads[i], NULL) == 0);

    CHECK_T(MPI_T_finalize() == MPI_SUCCESS);
    CHECK_T(MPI_T_finalize() == MPI_SUCCESS);
    /* The count is the process's (ranks of a process share their settings): once every rank finalized,
     * the interface is closed for all. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_T(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();

    /* after MPI_Finalize */
    CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    CHECK_T(read_size("MPCRT_EAGER_LIMIT") == 12345);
    CHECK_T(MPI_T_finalize() == MPI_SUCCESS);
    if (rank == 0)
        printf("tools: %d ranks, %d control variables\n", size, num);
    return 0;
}
