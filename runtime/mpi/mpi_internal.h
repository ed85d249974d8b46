/* Internal interface of the MPI layer (runtime/mpi). This first version holds only what the thread-mode
 * start-up needs: per-rank environment state, errors, and MPI_COMM_WORLD/MPI_COMM_SELF. */
#ifndef MPCRT_MPI_INTERNAL_H
#define MPCRT_MPI_INTERNAL_H

#include "mpi.h"

#include "../threads/sched.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Defines MPI_x as a weak alias of PMPI_x, so profiling tools can intercept MPI_x. */
#define MPCRT_PMPI_ALIAS(name) _Pragma(MPCRT_STRINGIFY(weak MPI_##name = PMPI_##name))
#define MPCRT_STRINGIFY(x) #x

typedef struct mpcrt_match mpcrt_match_t;
struct mpcrt_errcodes;
struct mpcrt_attr_rank;

/* One line per rank (ranks[] is line-aligned): the latency path indexes the array with a shift, and a rank's
 * flags, read by each of its MPI calls, share no line with another rank's state. */
typedef struct {
    _Alignas(64) bool initialized; /* the World Model: MPI_Init ... MPI_Finalize */
    bool finalized;                /* next to initialized: mpcrt_mpi_self_active_fast reads both at once */
    _Atomic int sessions; /* the Sessions Model: sessions initialized and not finalized (core/session.c) */
    bool used_sessions;   /* some session was initialized (a rank of the Sessions Model only leaves the job
                           * when its ULT ends: core/env.c) */
    int provided;
    mpcrt_match_t *match; /* this rank's receive queues (pt2pt/match.c) */
    void *bsend_buffer;   /* MPI_Buffer_attach */
    MPI_Count bsend_size;
    _Atomic(struct mpcrt_errcodes *) errcodes; /* errhan/codes.c: user error classes and codes */
    _Atomic(struct mpcrt_attr_rank *) attrs;   /* attr/: keyed attribute lists, lock */
} mpcrt_mpi_rank_t;
_Static_assert(offsetof(mpcrt_mpi_rank_t, finalized) == offsetof(mpcrt_mpi_rank_t, initialized) + 1,
               "mpcrt_mpi_self_active_fast reads both flags as one 16-bit word");

/* The ranks of this process (core/env.c): set up once by the first MPI_Init/Session_init; `ready` is
 * stored last (release). */
typedef struct {
    _Atomic bool ready;
    int first_rank; /* world rank of ranks[0] */
    int nranks;
    mpcrt_mpi_rank_t *ranks;
    /* nranks, stored (release) just before `ready`; 0 before: one unsigned comparison of a rank's local
     * index against it tests readiness and range at once (and, in the fast lookup, a negative rank). */
    _Atomic unsigned ranks_ready;
} mpcrt_mpi_process_t;
extern mpcrt_mpi_process_t mpcrt_mpi_process;

/* The calling rank's state; NULL when the process has not set up MPI yet. Inline: every MPI call asks. */
static inline mpcrt_mpi_rank_t *mpcrt_mpi_self(void)
{
    /* acquire: pairs with the release that set up first_rank and ranks[] (mpcrt_mpi_process_init). */
    unsigned ready = atomic_load_explicit(&mpcrt_mpi_process.ranks_ready, memory_order_acquire);
    int rank = mpcrt_self_rank();
    int first = mpcrt_mpi_process.first_rank;
    /* A kernel thread that is no rank's (a program without mpcc's entry point) is this process's rank. */
    unsigned local = (unsigned)((rank >= 0 ? rank : first) - first);
    return local < ready ? &mpcrt_mpi_process.ranks[local] : NULL;
}
/* MPI may be called by this rank: between MPI_Init and MPI_Finalize, or while a session is open. */
static inline bool mpcrt_mpi_rank_active(const mpcrt_mpi_rank_t *self)
{
    return (self->initialized && !self->finalized) ||
           atomic_load_explicit(&((mpcrt_mpi_rank_t *)self)->sessions, memory_order_relaxed) > 0;
}
static inline bool mpcrt_mpi_active(const mpcrt_mpi_rank_t *self)
{
    return self && mpcrt_mpi_rank_active(self);
}
/* The latency path's test: the caller is an active rank of this process (*self), with no test of a pointer
 * the index check already vouches for. False: the caller's general path decides. */
static inline bool mpcrt_mpi_self_active_fast(mpcrt_mpi_rank_t **self)
{
    unsigned ready = atomic_load_explicit(&mpcrt_mpi_process.ranks_ready, memory_order_acquire);
    unsigned local = (unsigned)(mpcrt_self_rank() - mpcrt_mpi_process.first_rank);
    if (local >= ready)
        return false;
    *self = &mpcrt_mpi_process.ranks[local];
    /* initialized && !finalized as one 16-bit compare (bools are 0 or 1): the latency path's case. */
    uint16_t flags;
    memcpy(&flags, &(*self)->initialized, sizeof flags);
    return flags == 1 || mpcrt_mpi_rank_active(*self);
}
/* MPI was set up by this rank at some point (the world model or a session), even if finalized since. */
static inline bool mpcrt_mpi_started(const mpcrt_mpi_rank_t *self)
{
    return self && (self->initialized || atomic_load_explicit(&((mpcrt_mpi_rank_t *)self)->sessions,
                                                              memory_order_relaxed) > 0);
}
/* The state of a rank of this process from its MPI_COMM_WORLD rank; NULL if it lives in another process.
 * Inline: every send asks. Also called by the rails' progress while the process connects (before `ready`):
 * ranks and first_rank are set before the rails open. */
static inline mpcrt_mpi_rank_t *mpcrt_mpi_rank_state(int world_rank)
{
    int local = world_rank - mpcrt_mpi_process.first_rank;
    return mpcrt_mpi_process.ranks && (unsigned)local < (unsigned)mpcrt_mpi_process.nranks
               ? &mpcrt_mpi_process.ranks[local]
               : NULL;
}
/* Rank of the caller in MPI_COMM_WORLD and the world's size. */
int mpcrt_mpi_world_rank(void);
int mpcrt_mpi_world_size(void);
/* Process-wide set-up done once, by the first rank that calls MPI_Init. */
int mpcrt_mpi_process_init(void);
bool mpcrt_mpi_any_rank_initialized(void);

/* Raises an error (an error class or code) detected by `function` on `comm` through the calling rank's
 * error handler on comm, and returns what the caller must return (the code, possibly changed by a user
 * handler). MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print one line (rank, function, error string, the
 * detail formatted from fmt) and end the job. Errors with no communicator (datatypes, info, keyvals...)
 * pass MPI_COMM_NULL or MPI_COMM_SELF: they are raised on MPI_COMM_SELF (MPI 4.0 section 9.3; see
 * core/errors.c for the MPICH-compatible default); before MPI_Init and after MPI_Finalize every error is
 * fatal. */
int mpcrt_mpi_error(MPI_Comm comm, const char *function, int error_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The text of a predefined error class, NULL if it is not one. */
const char *mpcrt_mpi_class_text(int error_class);
/* Raises MPI_ERR_UNSUPPORTED_OPERATION for `function` on `comm` (MPI_COMM_NULL: no communicator
 * argument, raised on MPI_COMM_SELF); MPI_T functions only return MPI_T_ERR_NOT_SUPPORTED. Called by the
 * stubs generated from runtime/mpi/api/functions.def. */
int mpcrt_mpi_unsupported(MPI_Comm comm, const char *function);
int mpcrt_mpi_t_unsupported(const char *function);

int mpcrt_mpi_world_barrier(void);

/* Common argument checks of the API layer; each raises the error through mpcrt_mpi_error. */
#define MPCRT_TAG_UB 0x7fffffff

#endif
