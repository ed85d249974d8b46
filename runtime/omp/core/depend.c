/* Task dependences (OpenMP 5.1 section 2.19.11). Each task that creates children keeps a hash table from
 * address to the last out/inout/mutexinoutset sibling and the in siblings since; a new sibling gets an
 * edge from each predecessor that has not completed yet (checked under the predecessor's dep_lock, which
 * its completion takes too). mutexinoutset is ordered like inout, which is one valid execution.
 * The GOMP depend array (gomp-constants.h): either [n, nout, out..., in...] or, when the first word is 0,
 * [0, n, nout, nmutexinoutset, nin, out..., mutexinoutset..., in..., depobj...], a depobj pointing to
 * {address, GOMP_DEPEND_* kind}. */
#include "../omp_internal.h"

#include <stdlib.h>
#include <string.h>

enum { DEP_IN = 1, DEP_OUT = 2, DEP_INOUT = 3, DEP_MUTEXINOUTSET = 4 };

typedef struct dep_entry {
    void *addr;
    omp_task_t *last_out;
    omp_task_t **readers;
    int nreaders, readers_cap;
    struct dep_entry *next;
} dep_entry_t;

struct omp_dep_table {
    dep_entry_t **buckets;
    size_t nbuckets, count;
};

static size_t hash_addr(void *addr, size_t nbuckets)
{
    uintptr_t a = (uintptr_t)addr;
    a ^= a >> 21;
    a *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(a >> 32) & (nbuckets - 1);
}

static void grow(omp_dep_table_t *tab)
{
    size_t nb = tab->nbuckets ? tab->nbuckets * 4 : 32;
    dep_entry_t **buckets = calloc(nb, sizeof *buckets);
    if (!buckets)
        omp_fatal("out of memory for task dependences");
    for (size_t b = 0; b < tab->nbuckets; b++) {
        dep_entry_t *e = tab->buckets[b];
        while (e) {
            dep_entry_t *next = e->next;
            size_t h = hash_addr(e->addr, nb);
            e->next = buckets[h];
            buckets[h] = e;
            e = next;
        }
    }
    free(tab->buckets);
    tab->buckets = buckets;
    tab->nbuckets = nb;
}

static dep_entry_t *lookup(omp_task_t *parent, void *addr)
{
    omp_dep_table_t *tab = parent->deps;
    if (!tab) {
        tab = parent->deps = calloc(1, sizeof *tab);
        if (!tab)
            omp_fatal("out of memory for task dependences");
    }
    if (tab->count >= tab->nbuckets)
        grow(tab);
    size_t h = hash_addr(addr, tab->nbuckets);
    for (dep_entry_t *e = tab->buckets[h]; e; e = e->next)
        if (e->addr == addr)
            return e;
    dep_entry_t *e = calloc(1, sizeof *e);
    if (!e)
        omp_fatal("out of memory for task dependences");
    e->addr = addr;
    e->next = tab->buckets[h];
    tab->buckets[h] = e;
    tab->count++;
    return e;
}

static void add_edge(omp_task_t *pred, omp_task_t *succ)
{
    if (pred == succ)
        return;
    omp_spin_lock(&pred->dep_lock);
    if (!pred->dep_complete) {
        if (pred->nsuccessors == pred->successors_cap) {
            int cap = pred->successors_cap ? 2 * pred->successors_cap : 4;
            omp_task_t **s = realloc(pred->successors, sizeof *s * (size_t)cap);
            if (!s)
                omp_fatal("out of memory for task dependences");
            pred->successors = s;
            pred->successors_cap = cap;
        }
        /* Duplicate edges (one predecessor through two addresses) are fine: each counts once. */
        pred->successors[pred->nsuccessors++] = succ;
        atomic_fetch_add_explicit(&succ->npredecessors, 1, memory_order_relaxed);
    }
    omp_spin_unlock(&pred->dep_lock);
}

static void add_dep(omp_task_t *parent, omp_task_t *t, void *addr, int kind)
{
    dep_entry_t *e = lookup(parent, addr);
    if (kind == DEP_IN) {
        if (e->last_out)
            add_edge(e->last_out, t);
        for (int i = 0; i < e->nreaders; i++)
            if (e->readers[i] == t)
                return;
        if (e->nreaders == e->readers_cap) {
            int cap = e->readers_cap ? 2 * e->readers_cap : 4;
            omp_task_t **r = realloc(e->readers, sizeof *r * (size_t)cap);
            if (!r)
                omp_fatal("out of memory for task dependences");
            e->readers = r;
            e->readers_cap = cap;
        }
        omp_task_ref(t);
        e->readers[e->nreaders++] = t;
        return;
    }
    /* out, inout, mutexinoutset: after every reader since the last writer, else after that writer. */
    if (e->nreaders > 0) {
        for (int i = 0; i < e->nreaders; i++) {
            add_edge(e->readers[i], t);
            omp_task_unref(e->readers[i]);
        }
        e->nreaders = 0;
    } else if (e->last_out) {
        add_edge(e->last_out, t);
    }
    if (e->last_out != t) {
        omp_task_ref(t);
        if (e->last_out)
            omp_task_unref(e->last_out);
        e->last_out = t;
    }
}

int omp_deps_register(omp_task_t *parent, omp_task_t *t, void **depend)
{
    /* One guard predecessor while edges are added, so an early completion cannot make t ready twice. */
    atomic_store_explicit(&t->npredecessors, 1, memory_order_relaxed);
    uintptr_t n, nout, nmutex = 0, nin;
    void **addrs;
    if ((uintptr_t)depend[0] != 0) {
        n = (uintptr_t)depend[0];
        nout = (uintptr_t)depend[1];
        nin = n - nout;
        addrs = depend + 2;
    } else {
        n = (uintptr_t)depend[1];
        nout = (uintptr_t)depend[2];
        nmutex = (uintptr_t)depend[3];
        nin = (uintptr_t)depend[4];
        addrs = depend + 5;
    }
    for (uintptr_t i = 0; i < n; i++) {
        void *addr = addrs[i];
        int kind;
        if (i < nout)
            kind = DEP_INOUT;
        else if (i < nout + nmutex)
            kind = DEP_MUTEXINOUTSET;
        else if (i < nout + nmutex + nin)
            kind = DEP_IN;
        else { /* depobj */
            void **obj = addr;
            addr = obj[0];
            kind = (int)(uintptr_t)obj[1];
            if (kind < DEP_IN || kind > DEP_MUTEXINOUTSET)
                kind = DEP_INOUT;
        }
        add_dep(parent, t, addr, kind);
    }
    /* acq_rel: the predecessors' completion (their release) is visible once this reaches zero. */
    return atomic_fetch_sub_explicit(&t->npredecessors, 1, memory_order_acq_rel) == 1 ? 0 : 1;
}

void omp_deps_release(omp_task_t *t)
{
    omp_spin_lock(&t->dep_lock);
    t->dep_complete = true;
    omp_task_t **succ = t->successors;
    int n = t->nsuccessors;
    t->successors = NULL;
    t->nsuccessors = t->successors_cap = 0;
    omp_spin_unlock(&t->dep_lock);
    for (int i = 0; i < n; i++)
        if (atomic_fetch_sub_explicit(&succ[i]->npredecessors, 1, memory_order_acq_rel) == 1)
            omp_task_make_ready(succ[i]);
    free(succ);
}

void omp_deps_clear(omp_task_t *parent)
{
    omp_dep_table_t *tab = parent->deps;
    if (!tab)
        return;
    parent->deps = NULL;
    for (size_t b = 0; b < tab->nbuckets; b++) {
        dep_entry_t *e = tab->buckets[b];
        while (e) {
            dep_entry_t *next = e->next;
            for (int i = 0; i < e->nreaders; i++)
                omp_task_unref(e->readers[i]);
            if (e->last_out)
                omp_task_unref(e->last_out);
            free(e->readers);
            free(e);
            e = next;
        }
    }
    free(tab->buckets);
    free(tab);
}
