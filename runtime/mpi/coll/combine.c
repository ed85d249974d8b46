/* The combine engine of the reductions: a range of instances of several members' buffers reduced, in rank
 * order, into one or more outputs. Predefined operations work on packed pieces (any layout, one loop per
 * basic type); user functions get the caller's layout and datatype, as MPI 4.0 section 6.9.5 defines them. */
#include "coll_internal.h"

#include <stdalign.h>
#include <stdlib.h>

/* Bytes of each input reduced at a time: bounds the scratch memory whatever the count. */
enum { PIECE_BYTES = 64 * 1024, SMALL_BYTES = 512 };

static MPI_Count min_count(MPI_Count a, MPI_Count b)
{
    return a < b ? a : b;
}

static int combine_packed(const mpcrt_coll_reduction_t *red, const coll_view_list_t *inputs, MPI_Count first,
                          MPI_Count n, const coll_view_list_t *outputs, MPI_Count out_first)
{
    int ninputs = inputs->n;
    mpcrt_op_kernel_t kernel;
    int rc = mpcrt_op_kernel(red->op->index, red->dt, &kernel);
    if (rc)
        return rc;
    MPI_Count size = red->dt->size, start = first * size, out_start = out_first * size, total = n * size;
    MPI_Count elem = kernel.elem_size;
    MPI_Count piece = min_count(total, PIECE_BYTES / elem > 0 ? PIECE_BYTES / elem * elem : elem);
    bool packing = false;
    for (int q = 0; q + 1 < ninputs; q++)
        packing |= !mpcrt_datatype_is_contiguous(coll_list_at(inputs, q)->dt);
    /* A small reduction (the fused ones: a few elements) accumulates on the stack: a malloc and a free per
     * call cost more than its whole combine. */
    alignas(64) char small_acc[SMALL_BYTES];
    char *acc = piece <= SMALL_BYTES ? small_acc : malloc((size_t)piece);
    char *scratch = packing ? malloc((size_t)piece) : NULL;
    if (!acc || (packing && !scratch)) {
        if (acc != small_acc)
            free(acc);
        free(scratch);
        return MPI_ERR_NO_MEM;
    }
    for (MPI_Count off = 0, len; off < total; off += len) {
        len = min_count(piece, total - off);
        coll_view_t acc_view = coll_packed_view(acc, len);
        coll_copy_range(coll_list_at(inputs, ninputs - 1), start + off, &acc_view, 0, len);
        for (int q = ninputs - 2; q >= 0; q--) {
            const coll_view_t *in = coll_list_at(inputs, q);
            const void *src;
            if (mpcrt_datatype_is_contiguous(in->dt)) {
                src = coll_at(in->buf, mpcrt_datatype_true_lb(in->dt) + start + off);
            } else {
                mpcrt_datatype_pack(in->dt, in->buf, in->count, start + off, len, scratch);
                src = scratch;
            }
            mpcrt_op_run_packed(&kernel, src, acc, len / elem);
        }
        for (int o = 0; o < outputs->n; o++)
            coll_copy_range(&acc_view, 0, coll_list_at(outputs, o), out_start + off, len);
    }
    if (acc != small_acc)
        free(acc);
    free(scratch);
    return MPI_SUCCESS;
}

/* Memory for `count` instances of dt in its own layout; *base receives where instance 0 starts. */
static void *alloc_layout(const mpcrt_datatype_t *dt, MPI_Count count, void **base)
{
    MPI_Aint extent = mpcrt_datatype_extent(dt), reach = (MPI_Aint)(count - 1) * extent;
    MPI_Aint lo = dt->true_lb + (extent < 0 ? reach : 0);
    MPI_Aint hi = dt->true_ub + (extent > 0 ? reach : 0);
    void *raw = malloc((size_t)(hi > lo ? hi - lo : 1));
    *base = raw ? coll_at(raw, -lo) : NULL;
    return raw;
}

static int combine_user(const mpcrt_coll_reduction_t *red, const coll_view_list_t *inputs, MPI_Count first,
                        MPI_Count n, const coll_view_list_t *outputs, MPI_Count out_first)
{
    int ninputs = inputs->n;
    mpcrt_datatype_t *dt = red->dt;
    MPI_Aint extent = mpcrt_datatype_extent(dt);
    MPI_Count size = dt->size;
    MPI_Aint span = mpcrt_datatype_true_extent(dt), step = extent < 0 ? -extent : extent;
    MPI_Aint widest = span > step ? span : step;
    MPI_Count per_piece = min_count(n, widest > 0 && PIECE_BYTES / widest > 0 ? PIECE_BYTES / widest : 1);
    bool converting = false; /* an input in another datatype object: copied into dt's layout first */
    for (int q = 0; q + 1 < ninputs; q++)
        converting |= coll_list_at(inputs, q)->dt != dt;
    void *acc, *scratch = NULL;
    void *acc_mem = alloc_layout(dt, per_piece, &acc), *scratch_mem = NULL;
    if (converting)
        scratch_mem = alloc_layout(dt, per_piece, &scratch);
    if (!acc_mem || (converting && !scratch_mem)) {
        free(acc_mem);
        free(scratch_mem);
        return MPI_ERR_NO_MEM;
    }
    for (MPI_Count j = 0, cnt; j < n; j += cnt) {
        cnt = min_count(per_piece, n - j);
        coll_view_t acc_view = {acc, dt, cnt};
        coll_copy_range(coll_list_at(inputs, ninputs - 1), (first + j) * size, &acc_view, 0, cnt * size);
        for (int q = ninputs - 2; q >= 0; q--) {
            const coll_view_t *in = coll_list_at(inputs, q);
            const void *src;
            if (in->dt == dt) {
                src = coll_at(in->buf, (MPI_Aint)(first + j) * extent);
            } else {
                coll_view_t scratch_view = {scratch, dt, cnt};
                coll_copy_range(in, (first + j) * size, &scratch_view, 0, cnt * size);
                src = scratch;
            }
            mpcrt_op_call_user(red->op, src, acc, cnt, red->type, extent);
        }
        for (int o = 0; o < outputs->n; o++)
            coll_copy_range(&acc_view, 0, coll_list_at(outputs, o), (out_first + j) * size, cnt * size);
    }
    free(acc_mem);
    free(scratch_mem);
    return MPI_SUCCESS;
}

int coll_combine(const mpcrt_coll_reduction_t *red, const coll_view_list_t *inputs, MPI_Count first,
                 MPI_Count n, const coll_view_list_t *outputs, MPI_Count out_first)
{
    if (n <= 0 || inputs->n <= 0 || red->dt->size == 0)
        return MPI_SUCCESS;
    if (red->op->index == MPCRT_OP_USER)
        return combine_user(red, inputs, first, n, outputs, out_first);
    return combine_packed(red, inputs, first, n, outputs, out_first);
}

bool coll_same_op(const mpcrt_op_t *a, const mpcrt_op_t *b)
{
    if (a->index != b->index)
        return false;
    return a->index != MPCRT_OP_USER || (a->fn == b->fn && a->fn_c == b->fn_c);
}
