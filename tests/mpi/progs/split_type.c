/* MPI_Comm_split_type by hardware (MPI 4.0 section 7.4.2) and the hints MPI_Comm_get_info reports. */
#include "check.h"

#include <string.h>

static int split_guided(const char *resource, MPI_Comm *out)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", resource);
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, out);
    MPI_Info_free(&info);
    return rc;
}

static int size_of(MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    return size;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm c;

    /* One machine, one process: these levels hold every rank. */
    CHECK(split_guided("machine", &c) == MPI_SUCCESS && c != MPI_COMM_NULL && size_of(c) == world);
    MPI_Comm_free(&c);
    CHECK(split_guided("mpi_shared_memory", &c) == MPI_SUCCESS && c != MPI_COMM_NULL && size_of(c) == world);
    MPI_Comm_free(&c);
    /* Cores: a partition of the world (sizes add up). */
    CHECK(split_guided("core", &c) == MPI_SUCCESS && c != MPI_COMM_NULL);
    int rank_in_core, leaders = 0, sum = 0;
    MPI_Comm_rank(c, &rank_in_core);
    int leader_size = rank_in_core == 0 ? size_of(c) : 0;
    MPI_Allreduce(&leader_size, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce((int[]){rank_in_core == 0}, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == world && leaders >= 1);
    MPI_Comm_free(&c);
    /* Unknown type, no info, wrong key: MPI_COMM_NULL. */
    CHECK(split_guided("no_such_resource", &c) == MPI_SUCCESS && c == MPI_COMM_NULL);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c) == MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);

    /* Unguided: a strict subset, and the level used is written into the info object. */
    MPI_Info info;
    MPI_Info_create(&info);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &c) == MPI_SUCCESS);
    if (c != MPI_COMM_NULL) {
        CHECK(size_of(c) < world);
        char level[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, level, &flag);
        CHECK(flag && strlen(level) > 0);
        MPI_Comm_free(&c);
    } else {
        CHECK(world == 1 || leaders == 1); /* nothing smaller than the world exists */
    }
    MPI_Info_free(&info);

    /* get_info: the MPI 4.0 assertions are reported, unknown keys are not. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Info_set(info, "no_such_hint", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_get_info(c, &info);
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0);
    MPI_Info_get(info, "no_such_hint", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(!flag);
    MPI_Info_free(&info);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
