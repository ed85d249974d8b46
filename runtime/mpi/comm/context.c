/* Context ids: every process hands out contexts from its own share of the id space, so a context is handed
 * out once in the whole job. Creations whose members live in several processes then agree on one member's
 * proposal (procs.c, idup.c, intercomm.c: the largest) and the result is theirs alone, however many
 * creations run at the same time. Before, every process counted through the whole space and skipped past
 * each agreed context: two creations running at once (threads of one rank on different parents) could
 * draw their proposals in opposite orders in two processes and agree on the same largest one, so their
 * messages and their in-process collective state (coll/hier.c, keyed by the context) mixed, and MPICH's
 * threads/comm/comm_create_threads hung in mixed mode. */
#include "comm.h"

/* After MPI_COMM_WORLD's pair (0, 1) and MPI_COMM_SELF's (2, 3), comm.c. */
enum { FIRST_FREE_CONTEXT = 4 };

/* The space is cut into blocks of BLOCK contexts, dealt to the processes in turn: this process's k-th
 * block is block k * nprocs + index. An allocation (2 or 4 contexts) never straddles two blocks. Ids stay
 * below bit 31 (pt2pt/partitioned.c sets it for a communicator's third context) while a process has taken
 * fewer than 2^31 / nprocs: with 2 contexts per communicator, 2^29 creations per process with 2 processes. */
enum { BLOCK = 64 };

/* How many contexts of this process's share have been handed out. */
static _Atomic uint32_t taken;

static uint32_t take(uint32_t count)
{
    uint32_t start, next = atomic_load_explicit(&taken, memory_order_relaxed);
    do {
        start = next;
        if (start % BLOCK + count > BLOCK)
            start += BLOCK - start % BLOCK; /* the rest of this block is too short: the next one */
    } while (!atomic_compare_exchange_weak_explicit(&taken, &next, start + count, memory_order_relaxed,
                                                    memory_order_relaxed));
    uint32_t procs = (uint32_t)mpcrt_job_num_procs(), index = (uint32_t)mpcrt_job_proc_index();
    return FIRST_FREE_CONTEXT + ((start / BLOCK) * procs + index) * BLOCK + start % BLOCK;
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
