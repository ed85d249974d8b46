/* MPI_Info: keys in order, values, lengths and truncation, limits and their error classes, dup, delete,
 * MPI_INFO_ENV and MPI_Info_create_env, and communicator hints (local to each rank, copied by dup). */
#include "check_errors.h"

#include <stdlib.h>
#include <string.h>

static void basics(void)
{
    MPI_Info info, copy;
    int flag, nkeys, len;
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0);
    CHECK_OK(MPI_Info_set(info, "zeta", "1"));
    CHECK_OK(MPI_Info_set(info, "alpha", "hello world"));
    CHECK_OK(MPI_Info_set(info, "mid", ""));
    CHECK_OK(MPI_Info_set(info, "zeta", "replaced")); /* keeps its place */
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3);
    const char *order[3] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0);
    }
    CHECK_OK(MPI_Info_get(info, "zeta", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "replaced") == 0);
    CHECK_OK(MPI_Info_get(info, "alpha", 5, value, &flag)); /* truncated to valuelen characters */
    CHECK(flag && strcmp(value, "hello") == 0);
    CHECK_OK(MPI_Info_get(info, "nope", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Info_get_valuelen(info, "alpha", &len, &flag));
    CHECK(flag && len == 11);
    CHECK_OK(MPI_Info_get_valuelen(info, "mid", &len, &flag));
    CHECK(flag && len == 0);
    CHECK_OK(MPI_Info_get_valuelen(info, "nope", &len, &flag));
    CHECK(!flag);

    /* MPI_Info_get_string: buflen 0 asks for the size; a short buffer gets a truncated, terminated value. */
    len = 0;
    CHECK_OK(MPI_Info_get_string(info, "alpha", &len, NULL, &flag));
    CHECK(flag && len == 12);
    char small[4] = "xxx";
    len = 4;
    CHECK_OK(MPI_Info_get_string(info, "alpha", &len, small, &flag));
    CHECK(flag && strcmp(small, "hel") == 0 && len == 12);
    len = sizeof value;
    CHECK_OK(MPI_Info_get_string(info, "alpha", &len, value, &flag));
    CHECK(flag && strcmp(value, "hello world") == 0 && len == 12);
    len = 7;
    CHECK_OK(MPI_Info_get_string(info, "nope", &len, value, &flag));
    CHECK(!flag && len == 7);

    /* A duplicate is independent. */
    CHECK_OK(MPI_Info_dup(info, &copy));
    CHECK_OK(MPI_Info_set(copy, "alpha", "changed"));
    CHECK_OK(MPI_Info_delete(copy, "zeta"));
    CHECK_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "hello world") == 0);
    CHECK_OK(MPI_Info_get_nkeys(copy, &nkeys));
    CHECK(nkeys == 2);
    CHECK_OK(MPI_Info_get_nthkey(copy, 0, key));
    CHECK(strcmp(key, "alpha") == 0);
    CHECK_OK(MPI_Info_free(&copy));
    CHECK(copy == MPI_INFO_NULL);

    /* Limits: a key of MPI_MAX_INFO_KEY characters and a value of MPI_MAX_INFO_VAL are fine, one more is
     * not; an empty key is not. */
    char long_key[MPI_MAX_INFO_KEY + 2], long_value[MPI_MAX_INFO_VAL + 2];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[MPI_MAX_INFO_KEY] = '\0';
    memset(long_value, 'v', sizeof long_value - 1);
    long_value[MPI_MAX_INFO_VAL] = '\0';
    CHECK_OK(MPI_Info_set(info, long_key, long_value));
    CHECK_OK(MPI_Info_get_valuelen(info, long_key, &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL);
    long_key[MPI_MAX_INFO_KEY] = 'k';
    long_key[MPI_MAX_INFO_KEY + 1] = '\0';
    long_value[MPI_MAX_INFO_VAL] = 'v';
    long_value[MPI_MAX_INFO_VAL + 1] = '\0';
    CHECK_CLASS(MPI_Info_set(info, long_key, "x"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_get(info, long_key, 10, value, &flag), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(info, "ok", long_value), MPI_ERR_INFO_VALUE);
    CHECK_CLASS(MPI_Info_delete(info, "never-set"), MPI_ERR_INFO_NOKEY);
    CHECK_CLASS(MPI_Info_get_nthkey(info, 4, key), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get(info, "zeta", -1, value, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    CHECK_CLASS(MPI_Info_get_nkeys((MPI_Info)0x1c00ffff, &nkeys), MPI_ERR_INFO);
    CHECK_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
}

/* A freed handle is invalid until it is reused. Handles are shared by the ranks of a process, so another
 * rank creating an object could take it at once: one rank checks while the others wait. */
static void freed_handle(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Info info, freed;
        int nkeys;
        CHECK_OK(MPI_Info_create(&info));
        freed = info;
        CHECK_OK(MPI_Info_free(&info));
        CHECK_CLASS(MPI_Info_get_nkeys(freed, &nkeys), MPI_ERR_INFO);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void environment(int size, const char *argv0)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;
    CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && atoi(value) == size);
    CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, argv0) == 0);
    CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "first second") == 0);
    CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && value[0] == '/');
    CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "host", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && value[0]);
    /* Shared by the ranks of a process: read-only; a copy can be changed. */
    CHECK_CLASS(MPI_Info_set(MPI_INFO_ENV, "maxprocs", "1"), MPI_ERR_INFO);
    MPI_Info env = MPI_INFO_ENV, copy;
    CHECK_CLASS(MPI_Info_free(&env), MPI_ERR_INFO);
    CHECK_OK(MPI_Info_dup(MPI_INFO_ENV, &copy));
    CHECK_OK(MPI_Info_set(copy, "maxprocs", "1"));
    CHECK_OK(MPI_Info_free(&copy));

    char *args[] = {"prog", "-x", "y", NULL};
    CHECK_OK(MPI_Info_create_env(3, args, &copy));
    CHECK_OK(MPI_Info_get(copy, "command", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "prog") == 0);
    CHECK_OK(MPI_Info_get(copy, "argv", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "-x y") == 0);
    CHECK_OK(MPI_Info_free(&copy));
}

static void hints(int rank)
{
    MPI_Comm dup, dup2, split;
    MPI_Info info, used;
    char value[MPI_MAX_INFO_VAL + 1], mine[32];
    int flag, nkeys;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_get_info(dup, &used));
    CHECK_OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0);
    CHECK_OK(MPI_Info_free(&used));
    /* Each rank sets its own value of a hint on the shared communicator. */
    snprintf(mine, sizeof mine, "%s", rank % 2 ? "true" : "false");
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_source", mine));
    CHECK_OK(MPI_Info_set(info, "mpcrt_no_such_hint", "1")); /* ignored (MPI 4.0: not reported) */
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_OK(MPI_Comm_set_info(dup, info));
    CHECK_OK(MPI_Info_free(&info));
    MPI_Barrier(dup); /* everyone has set theirs */
    CHECK_OK(MPI_Comm_get_info(dup, &used));
    CHECK_OK(MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, mine) == 0);
    CHECK_OK(MPI_Info_get(used, "mpcrt_no_such_hint", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Info_free(&used));
    /* A second set changes the keys it has and keeps the others. */
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "false"));
    CHECK_OK(MPI_Comm_set_info(dup, info));
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Comm_get_info(dup, &used));
    CHECK_OK(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "false") == 0);
    CHECK_OK(MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, mine) == 0);
    CHECK_OK(MPI_Info_free(&used));
    /* MPI_Comm_dup copies the hints; MPI_Comm_split does not. */
    CHECK_OK(MPI_Comm_dup(dup, &dup2));
    CHECK_OK(MPI_Comm_get_info(dup2, &used));
    CHECK_OK(MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, mine) == 0);
    CHECK_OK(MPI_Info_free(&used));
    CHECK_OK(MPI_Comm_split(dup, 0, rank, &split));
    CHECK_OK(MPI_Comm_get_info(split, &used));
    CHECK_OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0);
    CHECK_OK(MPI_Info_free(&used));
    CHECK_OK(MPI_Comm_set_info(dup, MPI_INFO_NULL));
    CHECK_CLASS(MPI_Comm_set_info(dup, (MPI_Info)0x1c00ffff), MPI_ERR_INFO);
    CHECK_OK(MPI_Comm_free(&split));
    CHECK_OK(MPI_Comm_free(&dup2));
    CHECK_OK(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    int rank, size;
    /* The info functions work before MPI_Init (MPI 4.0 section 11.4.1). */
    MPI_Info early;
    MPI_Info_create(&early);
    MPI_Info_set(early, "k", "v");
    MPI_Info_free(&early);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(early == MPI_INFO_NULL);
    basics();
    freed_handle(rank);
    environment(size, argv[0]);
    hints(rank);
    MPI_Finalize();
    return 0;
}
