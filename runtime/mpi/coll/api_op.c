/* MPI API: operation objects (MPI_Op_create(_c), MPI_Op_free, MPI_Op_commutative) and MPI_Reduce_local(_c).
 * None of them has a communicator: errors are raised on MPI_COMM_SELF (MPI 4.0 section 9.3). */
#include "coll_internal.h"

static int op_create(const char *fn, MPI_User_function *user_fn, MPI_User_function_c *user_fn_c, int commute,
                     MPI_Op *op)
{
    if (!user_fn && !user_fn_c)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "the user function is NULL");
    if (!op)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "op is NULL");
    int rc = mpcrt_op_create(user_fn, user_fn_c, commute != 0, op);
    if (rc)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, rc, "no memory for a new operation");
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}
MPCRT_PMPI_ALIAS(Op_create)

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}
MPCRT_PMPI_ALIAS(Op_create_c)

int PMPI_Op_free(MPI_Op *op)
{
    if (!op)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Op_free", MPI_ERR_ARG, "op is NULL");
    mpcrt_op_t *obj = mpcrt_op_get(*op);
    if (!obj)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Op_free", MPI_ERR_OP,
                               *op == MPI_OP_NULL ? "MPI_OP_NULL" : "invalid operation 0x%x", *op);
    if (obj->index != MPCRT_OP_USER)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Op_free", MPI_ERR_OP, "a predefined operation cannot be freed");
    mpcrt_handle_free(MPCRT_OBJ_OP, *op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    mpcrt_op_t *obj = mpcrt_op_get(op);
    if (!obj)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Op_commutative", MPI_ERR_OP,
                               op == MPI_OP_NULL ? "MPI_OP_NULL" : "invalid operation 0x%x", op);
    if (!commute)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Op_commutative", MPI_ERR_ARG, "commute is NULL");
    *commute = obj->commutative;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Op_commutative)

static int reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype type,
                        MPI_Op op_handle)
{
    mpcrt_datatype_t *dt;
    mpcrt_op_t *op;
    int rc;
    if ((rc = coll_check_count(fn, MPI_COMM_SELF, count)) ||
        (rc = coll_check_type(fn, MPI_COMM_SELF, type, &dt)) ||
        (rc = coll_check_op(fn, MPI_COMM_SELF, op_handle, dt, &op)) ||
        (rc = coll_check_buffer(fn, MPI_COMM_SELF, inbuf, count, dt, "input buffer")) ||
        (rc = coll_check_buffer(fn, MPI_COMM_SELF, inoutbuf, count, dt, "input/output buffer")))
        return rc;
    if (count > 0 && dt->size > 0 && (rc = coll_check_alias(fn, MPI_COMM_SELF, inbuf, inoutbuf)))
        return rc;
    rc = mpcrt_op_reduce_local(op, inbuf, inoutbuf, count, type, dt);
    return rc ? coll_raise(fn, MPI_COMM_SELF, rc) : MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
MPCRT_PMPI_ALIAS(Reduce_local)

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
MPCRT_PMPI_ALIAS(Reduce_local_c)
