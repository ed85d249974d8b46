/* Error handlers and error codes, every rank on its own: predefined handlers, MPI_ERRORS_RETURN and the
 * error class of invalid arguments, user handlers (arguments, inheritance by MPI_Comm_dup and
 * MPI_Comm_split, lifetime after MPI_Errhandler_free), handlers local to each rank, errors without a
 * communicator (MPI_COMM_SELF), user-defined classes, codes and strings, the deprecated MPI-1 names, and
 * errors of completed requests raised on the request's communicator. */
#include "check_errors.h"

#include <mpcrt.h>

#include <string.h>

static int calls;
static MPI_Comm last_comm;
static int last_code;

static void count_handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

static int self_calls;
static void self_handler(MPI_Comm *comm, int *code, ...)
{
    (void)code;
    CHECK(*comm == MPI_COMM_SELF);
    self_calls++;
}

static void predefined_handlers(void)
{
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_OK(MPI_Errhandler_free(&eh)); /* freeing a handle from get is allowed, even a predefined one */
    CHECK(eh == MPI_ERRHANDLER_NULL);
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
    CHECK_OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_ABORT);
    CHECK_OK(MPI_Comm_free(&dup));
}

/* With MPI_ERRORS_RETURN on MPI_COMM_WORLD, invalid arguments return their class. */
static void error_classes(int rank, int size)
{
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int buf[4] = {0};
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, rank, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CHECK_CLASS(MPI_Send(buf, 1, vec, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
    CHECK_OK(MPI_Type_free(&vec));
    /* Errors without a (valid) communicator follow MPI_COMM_WORLD's handler until MPI_COMM_SELF gets one. */
    int r;
    CHECK_CLASS(MPI_Comm_rank((MPI_Comm)0x12345, &r), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    MPI_Datatype t = MPI_INT;
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
    MPI_Info info = MPI_INFO_NULL;
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    MPI_Comm world = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_free(&world), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x7777), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    /* MPI_Comm_call_errhandler succeeds when the handler returns. */
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
}

static void user_handlers(int rank, int size)
{
    MPI_Errhandler eh, got;
    CHECK_OK(MPI_Comm_create_errhandler(count_handler, &eh));
    CHECK(eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL);
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_set_errhandler(dup, eh));
    CHECK_OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh); /* the handle the program created, while it is live */
    CHECK_OK(MPI_Errhandler_free(&got));

    /* A raised error reaches the handler with the communicator and the code, and the call returns it. */
    calls = 0;
    int buf = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, dup);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && calls == 1 && last_comm == dup && last_code == rc);
    CHECK_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_PENDING));
    CHECK(calls == 2 && last_code == MPI_ERR_PENDING && last_comm == dup);

    /* Freed while attached: it stays in force on dup and on what inherits from dup. */
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL);
    MPI_Comm dup2, half;
    CHECK_OK(MPI_Comm_dup(dup, &dup2));
    CHECK_OK(MPI_Comm_split(dup, rank % 2, -rank, &half));
    calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER));
    CHECK(calls == 1 && last_comm == dup2);
    CHECK_OK(MPI_Comm_call_errhandler(half, MPI_ERR_TAG));
    CHECK(calls == 2 && last_comm == half && last_code == MPI_ERR_TAG);
    /* A new handle once every user handle is gone; it names the same handler. */
    CHECK_OK(MPI_Comm_get_errhandler(dup2, &got));
    CHECK(got != MPI_ERRHANDLER_NULL && got != MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(dup, got));
    CHECK_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(calls == 3 && last_comm == dup);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Comm_free(&dup2));
    CHECK_OK(MPI_Comm_free(&dup));

    /* Each rank's handler on a shared communicator is its own (the association is local). */
    MPI_Comm shared;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    CHECK_OK(MPI_Comm_create_errhandler(count_handler, &eh));
    if (rank % 2 == 0)
        CHECK_OK(MPI_Comm_set_errhandler(shared, eh));
    MPI_Barrier(shared); /* every even rank has set its handler */
    CHECK_OK(MPI_Comm_get_errhandler(shared, &got));
    CHECK(rank % 2 == 0 ? got == eh : got == MPI_ERRORS_RETURN); /* odd ranks inherited RETURN from world */
    CHECK_OK(MPI_Errhandler_free(&got));
    calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(shared, MPI_ERR_OTHER));
    CHECK(calls == (rank % 2 == 0));
    MPI_Barrier(shared);
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Comm_free(&shared));

    /* The deprecated MPI-1 names. */
    CHECK_OK(MPI_Errhandler_create(count_handler, &eh));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    CHECK_OK(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == eh);
    calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG));
    CHECK(calls == 1 && last_comm == MPI_COMM_WORLD);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

/* Once MPI_COMM_SELF has a handler, errors without a communicator go to it (MPI 4.0 section 9.3). */
static void self_errors(void)
{
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_create_errhandler(self_handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    CHECK_OK(MPI_Errhandler_free(&eh));
    self_calls = 0;
    MPI_Info info = MPI_INFO_NULL;
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    int r;
    CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    CHECK(self_calls == 2);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
}

static void user_codes(int rank)
{
    int cls1, cls2, code1, code2, code3, out, len;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_OK(MPI_Add_error_class(&cls1));
    CHECK(cls1 > MPI_ERR_LASTCODE);
    CHECK_OK(MPI_Error_string(cls1, text, &len));
    CHECK(len == 0 && text[0] == '\0'); /* no string yet: empty */
    CHECK_OK(MPI_Add_error_code(cls1, &code1));
    CHECK_OK(MPI_Add_error_class(&cls2));
    CHECK_OK(MPI_Add_error_code(cls2, &code2));
    CHECK_OK(MPI_Add_error_code(MPI_ERR_ARG, &code3)); /* a user code of a predefined class */
    CHECK(code1 != cls1 && code2 != code1 && code3 != code2 && cls2 != cls1);
    CHECK_OK(MPI_Error_class(cls1, &out));
    CHECK(out == cls1);
    CHECK_OK(MPI_Error_class(code1, &out));
    CHECK(out == cls1);
    CHECK_OK(MPI_Error_class(code2, &out));
    CHECK(out == cls2);
    CHECK_OK(MPI_Error_class(code3, &out));
    CHECK(out == MPI_ERR_ARG);
    char mine[64];
    snprintf(mine, sizeof mine, "rank %d's first code", rank);
    CHECK_OK(MPI_Add_error_string(code1, mine));
    CHECK_OK(MPI_Add_error_string(cls2, "second class"));
    CHECK_OK(MPI_Error_string(code1, text, &len));
    CHECK(strcmp(text, mine) == 0 && len == (int)strlen(mine));
    CHECK_OK(MPI_Add_error_string(code1, "replaced"));
    CHECK_OK(MPI_Error_string(code1, text, &len));
    CHECK(strcmp(text, "replaced") == 0);
    CHECK_OK(MPI_Error_string(cls2, text, &len));
    CHECK(strcmp(text, "second class") == 0);
    CHECK_OK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
    CHECK(len > 0);
    /* Predefined strings cannot change; codes are not classes; unknown codes are errors. */
    CHECK_CLASS(MPI_Add_error_string(MPI_ERR_TRUNCATE, "x"), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_code(code1, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_string(code3 + 1000, "x"), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Error_class(code3 + 1000, &out), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Error_string(-5, text, &len), MPI_ERR_ARG);
    /* Every rank added the same sequence: the values agree across ranks (each rank has its own table). */
    int values[5] = {cls1, code1, cls2, code2, code3}, root[5];
    memcpy(root, values, sizeof root);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 1; r < size && rank == 0; r++)
        MPI_Send(root, 5, MPI_INT, r, 99, MPI_COMM_WORLD);
    if (rank != 0)
        MPI_Recv(root, 5, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(memcmp(root, values, sizeof root) == 0);
    /* MPICH's extensions delete strings, codes and classes; the lowest free value is reused. */
    int *last, flag;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == code3);
    CHECK_CLASS(MPIX_Delete_error_class(cls2), MPI_ERR_ARG); /* code2 still has class cls2 */
    CHECK_CLASS(MPIX_Delete_error_code(cls2), MPI_ERR_ARG);  /* a class, not a code */
    CHECK_CLASS(MPIX_Delete_error_class(code2), MPI_ERR_ARG); /* a code, not a class */
    CHECK_CLASS(MPIX_Delete_error_string(MPI_ERR_TRUNCATE), MPI_ERR_ARG);
    CHECK_OK(MPIX_Delete_error_string(cls2));
    CHECK_OK(MPI_Error_string(cls2, text, &len));
    CHECK(len == 0);
    CHECK_OK(MPIX_Delete_error_code(code2));
    CHECK_CLASS(MPI_Error_class(code2, &out), MPI_ERR_ARG);
    CHECK_OK(MPIX_Delete_error_class(cls2));
    CHECK_OK(MPIX_Delete_error_code(code3)); /* the largest: MPI_LASTUSEDCODE goes down */
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == code1);
    int again;
    CHECK_OK(MPI_Add_error_class(&again));
    CHECK(again == cls2);
    CHECK_OK(MPI_Error_string(again, text, &len));
    CHECK(len == 0); /* nothing left of the deleted class */
    CHECK_OK(MPI_Add_error_code(again, &code2));
    /* A user handler gets the user code. */
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_create_errhandler(count_handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2));
    CHECK(calls == 1 && last_code == code2);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Errhandler_free(&eh));
}

/* A failed request is reported by MPI_Wait/Test/Waitany/Waitall/Waitsome through the handler of the request's
 * communicator, not MPI_COMM_WORLD's (MPI 4.0 section 9.3). Pairs of ranks; a truncated receive fails. */
static void request_errors(int rank, int size)
{
    int peer = rank ^ 1;
    MPI_Comm dup;
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_create_errhandler(count_handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(dup, eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)); /* a wrong target kills the job */
    int two[2] = {rank, rank}, one[3] = {-1, -1, -7};
    for (int variant = 0; variant < 5 && peer < size; variant++) {
        MPI_Request req, sreq;
        MPI_Status st;
        calls = 0;
        last_comm = MPI_COMM_NULL;
        CHECK_OK(MPI_Irecv(one, 1, MPI_INT, peer, variant, dup, &req));
        CHECK_OK(MPI_Isend(two, 2, MPI_INT, peer, variant, dup, &sreq));
        int rc, index = -1, flag = 0, outcount = 0;
        switch (variant) {
        case 0:
            rc = MPI_Wait(&req, &st);
            break;
        case 1:
            do
                rc = MPI_Test(&req, &flag, &st);
            while (rc == MPI_SUCCESS && !flag);
            break;
        case 2:
            rc = MPI_Waitany(1, &req, &index, &st);
            CHECK(index == 0);
            break;
        case 3:
            rc = MPI_Waitall(1, &req, &st);
            CHECK(st.MPI_ERROR == MPI_ERR_TRUNCATE);
            break;
        default:
            rc = MPI_Waitsome(1, &req, &outcount, &index, &st);
            CHECK(outcount == 1 && index == 0 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
            break;
        }
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == (variant >= 3 ? MPI_ERR_IN_STATUS : MPI_ERR_TRUNCATE));
        CHECK(calls == 1 && last_comm == dup);
        CHECK(req == MPI_REQUEST_NULL && one[0] == peer && one[1] == -1);
        CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    }
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    predefined_handlers();
    error_classes(rank, size);
    user_handlers(rank, size);
    self_errors();
    user_codes(rank);
    request_errors(rank, size);
    MPI_Finalize();
    return 0;
}
