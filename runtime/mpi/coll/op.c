/* Operation objects: the predefined operations behind MPI_MAX ... MPI_NO_OP, user operations, calling user
 * functions, and the local reduction of two buffers (MPI_Reduce_local, and the building block of the
 * collectives' combine step). */
#include "coll_internal.h"

#include <limits.h>
#include <stdlib.h>

static mpcrt_op_t predefined_ops[MPCRT_OP_NPREDEFINED];

__attribute__((constructor)) static void init_predefined_ops(void)
{
    for (int i = MPCRT_OP_MAX; i < MPCRT_OP_NPREDEFINED; i++) {
        mpcrt_op_t *op = &predefined_ops[i];
        mpcrt_object_init(&op->obj, MPCRT_OBJ_OP, NULL);
        op->index = i;
        op->commutative = true; /* every predefined operation is (MPI 4.0 section 6.9.2) */
        /* MPI_MAX is 0x58000001: a builtin handle of kind MPCRT_OBJ_OP whose low byte is the index. */
        mpcrt_handle_register_predefined(&op->obj, MPCRT_OBJ_OP,
                                         mpcrt_handle_make(MPCRT_HANDLE_BUILTIN, MPCRT_OBJ_OP, (unsigned)i));
    }
}

static void destroy_user_op(mpcrt_object_t *obj)
{
    free(obj);
}

int mpcrt_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commutative, MPI_Op *handle)
{
    mpcrt_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return MPI_ERR_NO_MEM;
    mpcrt_object_init(&op->obj, MPCRT_OBJ_OP, destroy_user_op);
    op->index = MPCRT_OP_USER;
    op->commutative = commutative;
    op->large_count = fn_c != NULL;
    op->fn = fn;
    op->fn_c = fn_c;
    if (mpcrt_handle_register(&op->obj, handle) != 0) {
        free(op);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void mpcrt_op_call_user(const mpcrt_op_t *op, const void *in, void *inout, MPI_Count count, MPI_Datatype type,
                        MPI_Aint extent)
{
    /* The user may write through the datatype pointer: give it a copy. */
    MPI_Datatype arg = type;
    if (op->large_count) {
        MPI_Count len = count;
        if (len > 0)
            op->fn_c((void *)in, inout, &len, &arg);
        return;
    }
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        op->fn((void *)in, inout, &len, &arg);
        in = coll_at(in, (MPI_Aint)len * extent);
        inout = coll_at(inout, (MPI_Aint)len * extent);
        count -= len;
        arg = type;
    }
}

/* inout = in op inout over n packed elements, whatever the layout of the two user buffers: the fast paths
 * apply the kernel in place; other layouts go through the combine engine (packed pieces). */
int mpcrt_op_reduce_local(const mpcrt_op_t *op, const void *in, void *inout, MPI_Count count,
                          MPI_Datatype type, mpcrt_datatype_t *dt)
{
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (op->index == MPCRT_OP_USER) {
        mpcrt_op_call_user(op, in, inout, count, type, mpcrt_datatype_extent(dt));
        return MPI_SUCCESS;
    }
    mpcrt_op_kernel_t kernel;
    int rc = mpcrt_op_kernel(op->index, dt, &kernel);
    if (rc)
        return rc;
    if (mpcrt_datatype_is_contiguous(dt)) {
        MPI_Aint lb = mpcrt_datatype_true_lb(dt);
        mpcrt_op_run_packed(&kernel, coll_at(in, lb), coll_at(inout, lb), count * dt->size / kernel.elem_size);
        return MPI_SUCCESS;
    }
    if (kernel.pair && mpcrt_datatype_is_predefined(dt)) { /* MPI_DOUBLE_INT and the other padded pairs */
        kernel.pair(in, inout, count, kernel.native_stride, kernel.native_index_offset);
        return MPI_SUCCESS;
    }
    coll_view_t views[2] = {{(void *)in, dt, count}, {inout, dt, count}};
    coll_view_list_t inputs = {NULL, 0, views, 2}, output = {NULL, 0, &views[1], 1};
    mpcrt_coll_reduction_t red = {op, type, dt};
    return coll_combine(&red, &inputs, 0, count, &output, 0);
}
