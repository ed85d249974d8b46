/* omp_*_lock routines (OpenMP 5.1 section 3.9). A simple lock is the 32-bit word of core/lock.c; a nested
 * lock adds its owner (the owning task: OpenMP locks belong to tasks) and its depth, in libgomp's 16
 * bytes. Hints are accepted and ignored: every lock already spins briefly, then sleeps. */
#include "../omp_internal.h"
#include "../../../include/omp.h"

typedef struct {
    _Atomic int word;
    int depth;
    void *owner;
} nest_lock_t;

_Static_assert(sizeof(nest_lock_t) <= sizeof(omp_nest_lock_t), "nest lock fits libgomp's size");
_Static_assert(sizeof(_Atomic int) <= sizeof(omp_lock_t), "lock fits libgomp's size");

static _Atomic int *word_of(omp_lock_t *lock)
{
    return (_Atomic int *)(void *)lock;
}

OMP_EXPORT void omp_init_lock(omp_lock_t *lock)
{
    atomic_init(word_of(lock), 0);
}

OMP_EXPORT void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint;
    omp_init_lock(lock);
}

OMP_EXPORT void omp_destroy_lock(omp_lock_t *lock)
{
    (void)lock;
}

OMP_EXPORT void omp_set_lock(omp_lock_t *lock)
{
    omp_lock_acquire(word_of(lock));
}

OMP_EXPORT void omp_unset_lock(omp_lock_t *lock)
{
    omp_lock_release(word_of(lock));
}

OMP_EXPORT int omp_test_lock(omp_lock_t *lock)
{
    return omp_lock_try(word_of(lock));
}

static nest_lock_t *nest_of(omp_nest_lock_t *lock)
{
    return (nest_lock_t *)(void *)lock;
}

OMP_EXPORT void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest_of(lock);
    atomic_init(&l->word, 0);
    l->depth = 0;
    l->owner = NULL;
}

OMP_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint;
    omp_init_nest_lock(lock);
}

OMP_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    (void)lock;
}

/* Only the owner reads its own ownership as true, and it wrote it itself: no ordering needed. */
OMP_EXPORT void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest_of(lock);
    void *me = omp_self()->task;
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
        l->depth++;
        return;
    }
    omp_lock_acquire(&l->word);
    __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
    l->depth = 1;
}

OMP_EXPORT void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest_of(lock);
    if (--l->depth == 0) {
        __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
        omp_lock_release(&l->word);
    }
}

OMP_EXPORT int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    nest_lock_t *l = nest_of(lock);
    void *me = omp_self()->task;
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me)
        return ++l->depth;
    if (!omp_lock_try(&l->word))
        return 0;
    __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
    l->depth = 1;
    return 1;
}
