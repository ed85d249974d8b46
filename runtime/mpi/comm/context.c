/* Context ids: every process hands out contexts from its own share of the id space, so a context is handed
 * out once in the whole job. Creations whose members live in several processes then agree on one member's
 * proposal (procs.c, idup.c, intercomm.c: the largest) and the result is theirs alone, however many
 * creations run at the same time. Before, every process counted through the whole space and skipped past
 * each agreed context: two creations running at once (threads of one rank on different parents) could
 * draw their proposals in opposite orders in two processes and agree on the same largest one, so their
 * messages and their in-process collective state (coll/hier.c, keyed by the context) mixed, and MPICH's
 * threads/comm/comm_create_threads hung in mixed mode. */
#include "comm.h"
#include "../../threads/config.h"

/* After MPI_COMM_WORLD's pair (0, 1) and MPI_COMM_SELF's (2, 3), comm.c. */
enum { FIRST_FREE_CONTEXT = 4 };

/* The job's space is cut into blocks of BLOCK contexts, dealt to the processes in turn: this process's
 * k-th block is block k * nprocs + index. An allocation (2 or 4 contexts) never straddles two blocks. Job
 * ids stay below MPCRT_CONTEXT_LOCAL_FIRST: a process has about 2^30 / nprocs of them, 2^28 creations with 2
 * processes, 2^19 with 1024. Ids are not reused; once a process's share is gone, every creation it takes
 * part in fails (comm.h). Above, up to MPCRT_CONTEXT_EXHAUSTED, each process numbers the contexts of the
 * communicators only its own ranks use (mpcrt_comm_create_process_local), which never leave it; bit 31
 * stays free for pt2pt/partitioned.c, which sets it for a communicator's third context. */
enum { BLOCK = 64 };

/* How many contexts of this process's share have been handed out. */
static _Atomic uint32_t taken;

/* MPCRT_CONTEXT_IDS: how many ids of its share this process may take; 0 = no limit but the share's. */
static uint64_t budget(void)
{
    long ids = mpcrt_config_int(MPCRT_CFG_CONTEXT_IDS);
    return ids > 0 ? (uint64_t)ids : UINT64_MAX;
}

static uint32_t take(uint32_t count)
{
    uint64_t limit = budget();
    uint64_t procs = (uint64_t)mpcrt_job_num_procs(), index = (uint64_t)mpcrt_job_proc_index();
    uint32_t start, next = atomic_load_explicit(&taken, memory_order_relaxed);
    uint64_t id;
    do {
        start = next;
        if (start % BLOCK + count > BLOCK)
            start += BLOCK - start % BLOCK; /* the rest of this block is too short: the next one */
        id = FIRST_FREE_CONTEXT + ((uint64_t)(start / BLOCK) * procs + index) * BLOCK + start % BLOCK;
        /* Computed in 64 bits: `taken` itself stops well before it could wrap, as it only grows here. */
        if (id + count > MPCRT_CONTEXT_LOCAL_FIRST || (uint64_t)start + count > limit)
            return MPCRT_CONTEXT_EXHAUSTED;
    } while (!atomic_compare_exchange_weak_explicit(&taken, &next, start + count, memory_order_relaxed,
                                                    memory_order_relaxed));
    return (uint32_t)id;
}

uint32_t mpcrt_comm_new_context(void)
{
    /* Two contexts per communicator: point-to-point and collectives never match each other. */
    return take(2);
}

uint32_t mpcrt_comm_context_propose(int npairs)
{
    return take(2u * (uint32_t)npairs);
}

/* The contexts of process-local communicators: numbered apart from the job's, and not counted in
 * MPCRT_CONTEXT_IDS, so that a process that ran out of job contexts still makes them (coll/hier.c: every
 * process must make its node's, or the members would disagree on the algorithm). */
static _Atomic uint32_t local_taken;

uint32_t mpcrt_comm_new_local_context(void)
{
    uint32_t n = atomic_load_explicit(&local_taken, memory_order_relaxed);
    do {
        if ((uint64_t)MPCRT_CONTEXT_LOCAL_FIRST + n + 2 > MPCRT_CONTEXT_EXHAUSTED)
            return MPCRT_CONTEXT_EXHAUSTED;
    } while (!atomic_compare_exchange_weak_explicit(&local_taken, &n, n + 2, memory_order_relaxed,
                                                    memory_order_relaxed));
    return MPCRT_CONTEXT_LOCAL_FIRST + n;
}
