/* Tunables: every MPCRT_* setting is declared once in the table in config.c (name, type, default, doc),
 * read from the environment at start, and printed by `mpcrun --show-config`. Nothing else calls getenv
 * for runtime settings. */
#ifndef MPCRT_THREADS_CONFIG_H
#define MPCRT_THREADS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    MPCRT_CFG_RANKS_PER_PROC,
    MPCRT_CFG_NUM_PROCS,
    MPCRT_CFG_CORES_PER_RANK,
    MPCRT_CFG_OVERSUBSCRIBE,
    MPCRT_CFG_JOB_CORES,
    MPCRT_CFG_VPS,
    MPCRT_CFG_WAIT_POLICY,
    MPCRT_CFG_COLLAB_POLL,
    MPCRT_CFG_RANK_STACK,
    MPCRT_CFG_ULT_STACK,
    MPCRT_CFG_STACK_GUARD,
    MPCRT_CFG_SPIN_ROUNDS,
    MPCRT_CFG_BIASED_LOCKS,
    MPCRT_CFG_BIND,
    MPCRT_CFG_FIRST_CPU,
    MPCRT_CFG_EAGER_LIMIT,
    MPCRT_CFG_CONTEXT_IDS,
    MPCRT_CFG_NBC_PROGRESS,
    MPCRT_CFG_NBC_PRIORITY,
    MPCRT_CFG_COLL_ALGORITHM,
    MPCRT_CFG_RAILS,
    MPCRT_CFG_SHM_CELLS,
    MPCRT_CFG_SHM_CELL_SIZE,
    MPCRT_CFG_SHM_CMA,
    MPCRT_CFG_SHM_CMA_MIN,
    MPCRT_CFG_TCP_IF,
    MPCRT_CFG_NETNS,
    MPCRT_CFG_DEBUG,
    MPCRT_CFG_SHOW_CONFIG,
    MPCRT_CFG_COUNT
} mpcrt_config_id_t;

/* What an entry holds: ints and sizes are read by mpcrt_config_int (sizes in bytes; suffixes K, M, G),
 * bools too (0 or 1), strings by mpcrt_config_str. */
typedef enum { MPCRT_CONFIG_INT, MPCRT_CONFIG_SIZE, MPCRT_CONFIG_BOOL, MPCRT_CONFIG_STRING } mpcrt_config_type_t;

/* The declaration of one entry, for tools that list every setting (MPI_T control variables). The
 * strings are static. */
typedef struct {
    const char *name; /* the environment variable */
    mpcrt_config_type_t type;
    const char *default_value; /* as written in the table */
    const char *doc;
} mpcrt_config_desc_t;

/* Reads the environment once (thread-safe, idempotent). A malformed value is reported once on stderr and
 * the default is kept. */
void mpcrt_config_load(void);
long mpcrt_config_int(mpcrt_config_id_t id);
const char *mpcrt_config_str(mpcrt_config_id_t id);
bool mpcrt_config_is_set(mpcrt_config_id_t id);
void mpcrt_config_print(FILE *out);

/* Generic access by index, 0 <= id < mpcrt_config_count() (= MPCRT_CFG_COUNT): the declaration of an
 * entry; its value in effect is mpcrt_config_int/str(id). */
int mpcrt_config_count(void);
void mpcrt_config_describe(mpcrt_config_id_t id, mpcrt_config_desc_t *out);

#endif
