/* Private header of runtime/mpi/attr: the per-rank attribute state. */
#ifndef MPCRT_MPI_ATTR_INTERNAL_H
#define MPCRT_MPI_ATTR_INTERNAL_H

#include "attr.h"
#include "../../threads/sched.h"

#include <stdatomic.h>

enum { TYPE_BUCKETS = 64 };

/* The attributes of one datatype handle for one rank. */
typedef struct type_attrs {
    struct type_attrs *next;
    MPI_Datatype handle;
    mpcrt_attr_t *attrs;
} type_attrs_t;

typedef struct mpcrt_attr_rank mpcrt_attr_rank_t;

/* The calling rank's attribute state, created on first use; NULL for a thread without MPI state. */
mpcrt_attr_rank_t *mpcrt_attr_rank(void);
void mpcrt_attr_lock(mpcrt_attr_rank_t *r);
void mpcrt_attr_unlock(mpcrt_attr_rank_t *r);
/* Under the lock: the list of a datatype handle (created when `create`; NULL if absent or out of memory).
 * The list stays at that address until mpcrt_attr_type_forget. */
mpcrt_attr_t **mpcrt_attr_type_list(mpcrt_attr_rank_t *r, MPI_Datatype handle, bool create);
/* Under the lock: drops the table entry of a datatype handle whose list is empty. */
void mpcrt_attr_type_forget(mpcrt_attr_rank_t *r, MPI_Datatype handle);

#endif
