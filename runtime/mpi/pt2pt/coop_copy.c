/* Cooperative copies of large messages (DESIGN.md section 4, physical limits: one core's memcpy tops out
 * near 11 GB/s at 4 MiB). The rank doing a large contiguous copy (the sender into a posted receive, or the
 * receiver from a send descriptor) offers the copy to the peer waiting for that message when the peer sits
 * on another core: both then claim chunks from one counter, so the two cores share the copy. The job lives
 * on the initiator's stack; at most one helper takes it (exchange), and the initiator takes it back or waits
 * for the helper's last chunk before it completes anything. */
#include "pt2pt.h"

#include <string.h>

enum {
    COOP_MIN_BYTES = 512 << 10, /* below this, waking the peer costs more than half the copy saves */
    COOP_CHUNK_BYTES = 128 << 10,
};

struct mpcrt_copy_job {
    const char *src;
    char *dst;
    MPI_Count len;
    _Atomic MPI_Count next; /* next chunk to claim */
    _Atomic int helper_done;
};

static void copy_chunks(mpcrt_copy_job_t *job)
{
    for (;;) {
        /* relaxed: the counter only partitions the work; the data's visibility goes through helper_done and
         * the request's completion. */
        MPI_Count at = atomic_fetch_add_explicit(&job->next, COOP_CHUNK_BYTES, memory_order_relaxed);
        if (at >= job->len)
            return;
        MPI_Count n = job->len - at < COOP_CHUNK_BYTES ? job->len - at : COOP_CHUNK_BYTES;
        memcpy(job->dst + at, job->src + at, (size_t)n);
    }
}

void mpcrt_pt2pt_copy(void *dst, const void *src, MPI_Count len, mpcrt_request_t *peer)
{
    mpcrt_ult_t *owner = peer ? peer->owner : NULL;
    if (len < COOP_MIN_BYTES || !owner || mpcrt_ult_vp(owner) == mpcrt_self_vp()) {
        memcpy(dst, src, (size_t)len);
        return;
    }
    mpcrt_copy_job_t job = {.src = src, .dst = dst, .len = len};
    atomic_init(&job.next, 0);
    atomic_init(&job.helper_done, 0);
    /* release: a helper that takes the job sees its fields. */
    atomic_store_explicit(&peer->copy_job, &job, memory_order_release);
    mpcrt_ult_poke(owner); /* it waits in mpcrt_request_wait (wait_until) */
    copy_chunks(&job);
    if (atomic_exchange_explicit(&peer->copy_job, NULL, memory_order_acq_rel) == &job)
        return; /* nobody came: all chunks were ours */
    /* acquire: the helper's chunks are written before we complete the requests. */
    while (!atomic_load_explicit(&job.helper_done, memory_order_acquire))
        __builtin_ia32_pause(); /* the helper is copying its last chunk on another core */
}

static bool done_or_job(void *arg)
{
    mpcrt_request_t *req = arg;
    return mpcrt_request_done(req) || atomic_load_explicit(&req->copy_job, memory_order_relaxed);
}

void mpcrt_request_wait_slow(mpcrt_request_t *req)
{
    for (;;) {
        mpcrt_wait_until(done_or_job, req);
        if (mpcrt_request_done(req))
            return;
        mpcrt_copy_job_t *job = atomic_exchange_explicit(&req->copy_job, NULL, memory_order_acquire);
        if (job) {
            copy_chunks(job);
            atomic_store_explicit(&job->helper_done, 1, memory_order_release);
        }
    }
}
