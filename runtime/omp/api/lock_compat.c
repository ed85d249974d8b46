/* The OMP_1.0 lock entry points (omp_init_lock@OMP_1.0 ...): what programs linked against a libgomp
 * older than OpenMP 3.0 call. Their layouts are libgomp's 2.5 ones, a fact of that ABI: a simple lock is
 * one int (ours, so those forms are the current ones), a nested lock is {int owner; int count} of 8 bytes
 * (ours takes 16), owned by a thread, not a task, since OpenMP 2.5 had no tasks. The owner word is the
 * lock: 0 free, else the owning thread's id (omp_thread_t.compat_id); waiters park on its address. */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#define COMPAT(name, version) OMP_EXPORT __attribute__((symver(#name "@" version)))
/* `name`@OMP_1.0 as another symbol of `target`, a function of this file (an alias must be; the local name
 * name_omp10 is not exported). */
#define COMPAT_ALIAS(name, target)                                                                           \
    extern __typeof(target) name##_omp10 COMPAT(name, "OMP_1.0") __attribute__((alias(#target)))

typedef struct {
    _Atomic int owner;
    int count;
} nest_lock_25_t;

static _Atomic int next_compat_id = 1;

static int self_id(void)
{
    omp_thread_t *thr = omp_self();
    if (!thr->compat_id)
        thr->compat_id = atomic_fetch_add_explicit(&next_compat_id, 1, memory_order_relaxed);
    return thr->compat_id;
}

COMPAT(omp_init_lock, "OMP_1.0") void omp_init_lock_25(omp_lock_t *lock)
{
    omp_init_lock(lock);
}

COMPAT(omp_destroy_lock, "OMP_1.0") void omp_destroy_lock_25(omp_lock_t *lock)
{
    omp_destroy_lock(lock);
}

COMPAT(omp_set_lock, "OMP_1.0") void omp_set_lock_25(omp_lock_t *lock)
{
    omp_set_lock(lock);
}

COMPAT(omp_unset_lock, "OMP_1.0") void omp_unset_lock_25(omp_lock_t *lock)
{
    omp_unset_lock(lock);
}

COMPAT(omp_test_lock, "OMP_1.0") int omp_test_lock_25(omp_lock_t *lock)
{
    return omp_test_lock(lock);
}

COMPAT(omp_init_nest_lock, "OMP_1.0") void omp_init_nest_lock_25(nest_lock_25_t *lock)
{
    atomic_init(&lock->owner, 0);
    lock->count = 0;
}

COMPAT(omp_destroy_nest_lock, "OMP_1.0") void omp_destroy_nest_lock_25(nest_lock_25_t *lock)
{
    (void)lock;
}

/* Takes the lock if free; returns the new depth, or 0 if another thread owns it (*seen: that owner). */
static int try_nest(nest_lock_25_t *lock, int me, int *seen)
{
    int owner = 0;
    /* acquire: the previous owner's critical section happens before ours. */
    if (atomic_compare_exchange_strong_explicit(&lock->owner, &owner, me, memory_order_acquire,
                                                memory_order_relaxed)) {
        lock->count = 1;
        return 1;
    }
    *seen = owner;
    return owner == me ? ++lock->count : 0; /* only the owner reads its own id back: no ordering needed */
}

static bool still_owned(void *addr, void *arg)
{
    (void)arg;
    return atomic_load_explicit((_Atomic int *)addr, memory_order_relaxed) != 0;
}

COMPAT(omp_set_nest_lock, "OMP_1.0") void omp_set_nest_lock_25(nest_lock_25_t *lock)
{
    int me = self_id(), seen;
    while (!try_nest(lock, me, &seen))
        omp_park(&lock->owner, still_owned, NULL); /* re-checked under the bucket lock the unset takes */
}

COMPAT(omp_unset_nest_lock, "OMP_1.0") void omp_unset_nest_lock_25(nest_lock_25_t *lock)
{
    if (--lock->count == 0) {
        /* release: our critical section before the next owner's. */
        atomic_store_explicit(&lock->owner, 0, memory_order_release);
        omp_unpark_one(&lock->owner);
    }
}

COMPAT(omp_test_nest_lock, "OMP_1.0") int omp_test_nest_lock_25(nest_lock_25_t *lock)
{
    int seen;
    return try_nest(lock, self_id(), &seen);
}

/* The Fortran OMP_1.0 forms: gfortran passes the lock variable by reference, and in that ABI
 * omp_lock_kind = 4 and omp_nest_lock_kind = 8 hold the 2.5 layouts themselves, so each is the C form. */
COMPAT_ALIAS(omp_init_lock_, omp_init_lock_25);
COMPAT_ALIAS(omp_destroy_lock_, omp_destroy_lock_25);
COMPAT_ALIAS(omp_set_lock_, omp_set_lock_25);
COMPAT_ALIAS(omp_unset_lock_, omp_unset_lock_25);
COMPAT_ALIAS(omp_test_lock_, omp_test_lock_25);
COMPAT_ALIAS(omp_init_nest_lock_, omp_init_nest_lock_25);
COMPAT_ALIAS(omp_destroy_nest_lock_, omp_destroy_nest_lock_25);
COMPAT_ALIAS(omp_set_nest_lock_, omp_set_nest_lock_25);
COMPAT_ALIAS(omp_unset_nest_lock_, omp_unset_nest_lock_25);
COMPAT_ALIAS(omp_test_nest_lock_, omp_test_nest_lock_25);
