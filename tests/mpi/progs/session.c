/* The Sessions Model without MPI_Init: process sets, a communicator from the world set that moves data,
 * the session's error handler, sessions opened again and mixed with the World Model, and a session's
 * communicators after MPI_Finalize. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int handler_calls;

static void count_errors(MPI_Session *session, int *code, ...)
{
    (void)session;
    if (*code == MPI_ERR_OTHER)
        handler_calls++;
}

static MPI_Comm world_from(MPI_Session s)
{
    MPI_Group g;
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS);
    MPI_Comm c;
    CHECK(MPI_Comm_create_from_group(g, "mpcrt.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) ==
          MPI_SUCCESS);
    MPI_Group_free(&g);
    return c;
}

static void use_session(int expected_size)
{
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS);
    int n = 0;
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 2);
    bool world = false, self = false;
    for (int i = 0; i < n; i++) {
        char name[64];
        int len = 0;
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL) == MPI_SUCCESS && len > 1);
        CHECK(len <= (int)sizeof name);
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name) == MPI_SUCCESS);
        CHECK((int)strlen(name) + 1 == len);
        MPI_Info info;
        char size[16];
        int flag = 0;
        CHECK(MPI_Session_get_pset_info(s, name, &info) == MPI_SUCCESS);
        MPI_Info_get(info, "mpi_size", sizeof size - 1, size, &flag);
        MPI_Info_free(&info);
        CHECK(flag);
        if (strcmp(name, "mpi://WORLD") == 0) {
            world = true;
            CHECK(atoi(size) == expected_size);
        } else if (strcmp(name, "mpi://SELF") == 0) {
            self = true;
            CHECK(atoi(size) == 1);
        }
    }
    CHECK(world && self);
    MPI_Group g;
    CHECK(MPI_Group_from_session_pset(s, "mpi://no_such_set", &g) == MPI_ERR_ARG);

    MPI_Comm c = world_from(s);
    int rank, size, sum = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    CHECK(size == expected_size);
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    int token = rank, got = -1;
    CHECK(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size,
                       0, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == (rank + size - 1) % size);
    MPI_Comm_free(&c);

    MPI_Info used;
    char level[64];
    int flag = 0;
    CHECK(MPI_Session_get_info(s, &used) == MPI_SUCCESS);
    MPI_Info_get(used, "thread_level", sizeof level - 1, level, &flag);
    CHECK(flag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0);
    MPI_Info_free(&used);

    MPI_Errhandler eh, got_eh;
    CHECK(MPI_Session_create_errhandler(count_errors, &eh) == MPI_SUCCESS);
    CHECK(MPI_Session_set_errhandler(s, eh) == MPI_SUCCESS);
    CHECK(MPI_Session_get_errhandler(s, &got_eh) == MPI_SUCCESS && got_eh == eh);
    MPI_Errhandler_free(&got_eh);
    MPI_Errhandler_free(&eh);
    int before = handler_calls;
    CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(handler_calls == before + 1);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS && s == MPI_SESSION_NULL);
}

/* A session opened inside the World Model outlives MPI_Finalize (MPI 4.0 section 11.3): its communicators
 * stay usable, through every kind of argument check (communicator, group, creation, topology, handlers). */
static void session_after_finalize(int expected_size)
{
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS);
    MPI_Comm c = world_from(s);
    MPI_Finalize();
    int rank = -1, size = 0, sum = -1, topo = -1, gsize = 0;
    CHECK(MPI_Comm_rank(c, &rank) == MPI_SUCCESS && MPI_Comm_size(c, &size) == MPI_SUCCESS);
    CHECK(size == expected_size);
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS && sum == size * (size - 1) / 2);
    CHECK(MPI_Topo_test(c, &topo) == MPI_SUCCESS && topo == MPI_UNDEFINED);
    MPI_Errhandler eh;
    CHECK(MPI_Comm_get_errhandler(c, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Group g;
    CHECK(MPI_Comm_group(c, &g) == MPI_SUCCESS && MPI_Group_size(g, &gsize) == MPI_SUCCESS);
    CHECK(gsize == size);
    MPI_Group_free(&g);
    MPI_Comm dup, half;
    CHECK(MPI_Comm_dup(c, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_split(dup, rank % 2, rank, &half) == MPI_SUCCESS);
    int half_size = 0;
    CHECK(MPI_Comm_size(half, &half_size) == MPI_SUCCESS && half_size == (size + (rank % 2 == 0)) / 2);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&c);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag);
    use_session(atoi(argv[1]));
    use_session(atoi(argv[1])); /* a second session after the first was finalized */
    MPI_Init(&argc, &argv);     /* then the World Model, with a session inside it */
    use_session(atoi(argv[1]));
    session_after_finalize(atoi(argv[1])); /* calls MPI_Finalize */
    return 0;
}
