/* Meetings: rendezvous of the members of a group keyed by (parent context, tag, string tag, members), for
 * creations that are collective over a group rather than over a communicator (MPI_Comm_create_group,
 * MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups). In-process: the open
 * meetings are a short list under one spinlock, touched once per member per creation (not a hot path). */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

struct mpcrt_meeting {
    uint32_t context;
    int tag;
    char *stringtag; /* NULL when the key has none */
    int size;
    int *world; /* the key's members, in group order */
    int arrived; /* under open_lock while the meeting is open */
    _Atomic int left;
    mpcrt_barrier_t barrier;
    struct mpcrt_meeting *next;
    void *contributions[]; /* by group rank */
};

static _Atomic int open_lock;
static mpcrt_meeting_t *open_meetings;

static bool same_key(const mpcrt_meeting_t *m, uint32_t context, int tag, const char *stringtag,
                     const int *world, int size)
{
    return m->context == context && m->tag == tag && m->size == size &&
           (m->stringtag && stringtag ? strcmp(m->stringtag, stringtag) == 0 : m->stringtag == stringtag) &&
           memcmp(m->world, world, sizeof(int) * (size_t)size) == 0;
}

static void free_meeting(mpcrt_meeting_t *m)
{
    free(m->stringtag);
    free(m->world);
    free(m);
}

static mpcrt_meeting_t *new_meeting(uint32_t context, int tag, const char *stringtag, const int *world, int size)
{
    mpcrt_meeting_t *m = calloc(1, sizeof *m + sizeof(void *) * (size_t)size);
    if (!m)
        return NULL;
    m->world = malloc(sizeof(int) * (size_t)size);
    m->stringtag = stringtag ? strdup(stringtag) : NULL;
    if (!m->world || (stringtag && !m->stringtag) || mpcrt_barrier_init(&m->barrier, (unsigned)size) != 0) {
        free_meeting(m);
        return NULL;
    }
    memcpy(m->world, world, sizeof(int) * (size_t)size);
    m->context = context;
    m->tag = tag;
    m->size = size;
    return m;
}

mpcrt_meeting_t *mpcrt_meeting_join(uint32_t context, int tag, const char *stringtag, const int *world, int size,
                                    int my_rank, void *contribution)
{
    /* Allocated outside the lock, in case this member opens the meeting; freed if another did. */
    mpcrt_meeting_t *fresh = new_meeting(context, tag, stringtag, world, size);
    mpcrt_spin_lock(&open_lock);
    mpcrt_meeting_t **link = &open_meetings;
    while (*link && !same_key(*link, context, tag, stringtag, world, size))
        link = &(*link)->next;
    mpcrt_meeting_t *m = *link;
    if (!m) {
        if (!fresh) {
            mpcrt_spin_unlock(&open_lock);
            return NULL;
        }
        m = fresh;
        fresh = NULL;
        m->next = open_meetings;
        open_meetings = m;
        link = &open_meetings;
    }
    m->contributions[my_rank] = contribution;
    if (++m->arrived == m->size)
        *link = m->next; /* full: the next call with this key opens a new meeting */
    mpcrt_spin_unlock(&open_lock);
    if (fresh)
        free_meeting(fresh);
    /* The barrier's lock orders every member's contribution above before every member's reads after it. */
    mpcrt_barrier_wait(&m->barrier);
    return m;
}

void **mpcrt_meeting_contributions(mpcrt_meeting_t *m)
{
    return m->contributions;
}

void mpcrt_meeting_leave(mpcrt_meeting_t *m)
{
    mpcrt_barrier_wait(&m->barrier);
    /* acq_rel: every member's last use (its return from the barrier) happens before the free. A member
     * counts itself only after barrier_wait returned, so the last one frees a barrier nobody is inside. */
    if (atomic_fetch_add_explicit(&m->left, 1, memory_order_acq_rel) == m->size - 1)
        free_meeting(m);
}
