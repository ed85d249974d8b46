/* Privatization runtime (DESIGN.md section 5): the modules compiled with -fmpc-privatize register their
 * privatized ranges (mpc_module.o); at start the runtime checks that every privatized extern is defined
 * inside a privatized range, then snapshots the master ranges into memfds (after constructors). A rank's
 * copy of every module is the snapshot mapped privately (copy-on-write: untouched pages stay shared) at
 * the module's own address plus one delta D that is the same for every module, so that code in one module
 * reaching a variable of another computes &g + D; slots whose initial value is a privatized address are
 * relocated by D. ULT-level copies (ex-__thread, threadprivate) work the same way with their own delta. */
#define _GNU_SOURCE
#include "priv.h"
#include "log.h"
#include "sched_internal.h"

#include "mpcrt/priv_abi.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

typedef struct {
    char *page_begin; /* the range rounded out to pages: copies keep the master's offset in the page */
    size_t length;
    int memfd; /* the snapshot; -1 if the range is empty */
} image_t;

typedef struct {
    mpcrt_priv_module_t *desc;
    image_t task, ult;
    uintptr_t *task_slots, *ult_slots; /* sorted, deduplicated master addresses of slots to relocate */
    size_t ntask_slots, nult_slots;
} module_t;

static mpcrt_priv_module_t *registered;
static _Atomic int registration_lock;
static module_t *modules;
static int nmodules;
static bool initialized, enabled;
static size_t stride;              /* distance between consecutive copies: >= every image, page multiple */
static _Atomic long next_copy_slot; /* copy k lives at delta -(k + 1) * stride */
static size_t page_size;

/* Per-rank bookkeeping, found from a task delta in O(1) through its copy slot. */
typedef struct {
    intptr_t task_delta;
    mpcrt_mutex_t lock;
    intptr_t *thread_deltas; /* ULT-level copy per OpenMP thread number; [0] is the rank's own */
    int nthreads;
    struct dtor { void (*fn)(void *); void *arg; } *dtors;
    size_t ndtors, dtor_capacity;
} task_t;

static task_t **tasks;
static size_t task_capacity;
static _Atomic int tasks_lock;

void mpcrt_priv_register_module(mpcrt_priv_module_t *module)
{
    if (module->abi_version != MPCRT_PRIV_ABI_VERSION) {
        fprintf(stderr, "mpcrt: a module was built for privatization ABI %u, this runtime has %u: rebuild it "
                        "with this mpcc\n", module->abi_version, MPCRT_PRIV_ABI_VERSION);
        exit(1);
    }
    mpcrt_spin_lock(&registration_lock);
    bool late = initialized;
    module->next = registered;
    registered = module;
    mpcrt_spin_unlock(&registration_lock);
    if (late) {
        Dl_info info = {0};
        dladdr(module->task_begin ? (void *)module->task_begin : (void *)module->ult_begin, &info);
        fprintf(stderr, "mpcrt: %s was loaded after the ranks started: its privatized variables are shared "
                        "by all ranks (link it to the program instead of dlopen-ing it)\n",
                info.dli_fname ? info.dli_fname : "a privatized module");
    }
}

static char *page_floor(const char *p) { return (char *)((uintptr_t)p & ~(uintptr_t)(page_size - 1)); }
static char *page_ceil(const char *p) { return page_floor(p + page_size - 1); }

static bool in_task_range(uintptr_t address)
{
    for (int i = 0; i < nmodules; i++) {
        const mpcrt_priv_module_t *d = modules[i].desc;
        if (address >= (uintptr_t)d->task_begin && address < (uintptr_t)d->task_end)
            return true;
    }
    return false;
}

static bool in_ult_range(uintptr_t address)
{
    for (int i = 0; i < nmodules; i++) {
        const mpcrt_priv_module_t *d = modules[i].desc;
        if (address >= (uintptr_t)d->ult_begin && address < (uintptr_t)d->ult_end)
            return true;
    }
    return false;
}

static const char *module_path(const void *address)
{
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?";
}

/* Every privatized extern a TU used must be defined in a privatized range, or its accesses would land at
 * master + delta, outside any copy. */
static int check_externs(void)
{
    for (int i = 0; i < nmodules; i++) {
        const mpcrt_priv_module_t *d = modules[i].desc;
        for (int ult = 0; ult < 2; ult++) {
            uintptr_t *entry = ult ? d->ult_chk_begin : d->task_chk_begin;
            uintptr_t *end = ult ? d->ult_chk_end : d->task_chk_end;
            for (; entry && entry < end; entry++) {
                if (!*entry || (ult ? in_ult_range(*entry) : in_task_range(*entry)))
                    continue;
                Dl_info info = {0};
                dladdr((void *)*entry, &info);
                fprintf(stderr,
                        "mpcrt: privatization: '%s' (used in %s) is defined outside every privatized range, in "
                        "%s: its definition was compiled without -fmpc-privatize, or the executable reaches it "
                        "through a copy relocation (build every file with mpcc -fmpc-privatize)\n",
                        info.dli_sname ? info.dli_sname : "?", module_path(entry),
                        info.dli_fname ? info.dli_fname : "an unknown object");
                return -EINVAL;
            }
        }
    }
    return 0;
}

/* Snapshots read whole pages, including the bytes between and around globals that ASan poisons. */
__attribute__((no_sanitize_address)) static bool page_is_zero(const char *page)
{
    const uint64_t *words = (const uint64_t *)page;
    for (size_t i = 0; i < page_size / sizeof *words; i++)
        if (words[i])
            return false;
    return true;
}

/* Snapshot of [begin, end) rounded to pages, in a memfd; zero pages are left as holes so that big
 * zero-initialized arrays cost nothing until a rank writes them. */
static int snapshot(image_t *image, char *begin, char *end)
{
    image->memfd = -1;
    if (!begin || begin == end)
        return 0;
    image->page_begin = page_floor(begin);
    image->length = (size_t)(page_ceil(end) - image->page_begin);
    image->memfd = memfd_create("mpcrt-privatized", MFD_CLOEXEC);
    if (image->memfd < 0 || ftruncate(image->memfd, (off_t)image->length) != 0)
        return -errno;
    for (size_t off = 0; off < image->length; off += page_size) {
        const char *page = image->page_begin + off;
        /* The raw syscall: ASan's pwrite interceptor would check the redzones around globals. */
        if (!page_is_zero(page) &&
            syscall(SYS_pwrite64, image->memfd, page, page_size, (off_t)off) != (long)page_size)
            return -errno;
    }
    return 0;
}

static int compare_addresses(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* COMDAT variables appear in the tables of every TU that emitted them: relocate each slot once. */
static uintptr_t *unique_slots(uintptr_t *begin, uintptr_t *end, size_t *count)
{
    *count = 0;
    if (!begin || begin >= end)
        return NULL;
    size_t n = (size_t)(end - begin);
    uintptr_t *slots = malloc(n * sizeof *slots);
    if (!slots)
        return NULL;
    memcpy(slots, begin, n * sizeof *slots);
    qsort(slots, n, sizeof *slots, compare_addresses);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || slots[i] != slots[kept - 1])
            slots[kept++] = slots[i];
    *count = kept;
    return slots;
}

int mpcrt_priv_init(void)
{
    if (initialized)
        return 0;
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    mpcrt_spin_lock(&registration_lock);
    for (mpcrt_priv_module_t *d = registered; d; d = d->next)
        nmodules++;
    modules = calloc((size_t)(nmodules ? nmodules : 1), sizeof *modules);
    int i = 0;
    for (mpcrt_priv_module_t *d = registered; d; d = d->next)
        modules[i++].desc = d;
    initialized = true;
    mpcrt_spin_unlock(&registration_lock);
    if (!nmodules)
        return 0;
    int rc = check_externs();
    for (i = 0; i < nmodules && rc == 0; i++) {
        module_t *m = &modules[i];
        rc = snapshot(&m->task, m->desc->task_begin, m->desc->task_end);
        if (rc == 0)
            rc = snapshot(&m->ult, m->desc->ult_begin, m->desc->ult_end);
        m->task_slots = unique_slots(m->desc->task_rel_begin, m->desc->task_rel_end, &m->ntask_slots);
        m->ult_slots = unique_slots(m->desc->ult_rel_begin, m->desc->ult_rel_end, &m->nult_slots);
        size_t span = m->task.length > m->ult.length ? m->task.length : m->ult.length;
        if (span > stride)
            stride = span;
    }
    if (rc)
        return rc;
    stride = (stride + (64 << 10) - 1) & ~(size_t)((64 << 10) - 1); /* 64 KiB granularity */
    enabled = true;
    mpcrt_log(MPCRT_LOG_SCHED, "privatization: %d module(s), copies of %zu KiB", nmodules, stride >> 10);
    return 0;
}

bool mpcrt_priv_enabled(void)
{
    return enabled;
}

/* Maps a copy of one image kind of every module at the same delta; tries successive deltas until no
 * module's copy would overlap an existing mapping. Returns the copy slot, or a negative errno. */
static long map_copies(bool ult, intptr_t *delta_out)
{
    for (int attempt = 0; attempt < 4096; attempt++) {
        long slot = atomic_fetch_add(&next_copy_slot, 1);
        intptr_t delta = -(intptr_t)(slot + 1) * (intptr_t)stride;
        int mapped = 0;
        for (; mapped < nmodules; mapped++) {
            image_t *image = ult ? &modules[mapped].ult : &modules[mapped].task;
            if (image->memfd < 0)
                continue;
            char *want = image->page_begin + delta;
            if ((uintptr_t)image->page_begin < (uintptr_t)-delta)
                break; /* would wrap below address 0 */
            void *got = mmap(want, image->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
                             image->memfd, 0);
            if (got == want)
                continue;
            if (got != MAP_FAILED)
                munmap(got, image->length); /* an old kernel placed it elsewhere */
            else if (errno != EEXIST)
                return -errno;
            break;
        }
        if (mapped == nmodules) {
            *delta_out = delta;
            return slot;
        }
        for (int j = 0; j < mapped; j++) { /* collision: undo and try the next delta */
            image_t *image = ult ? &modules[j].ult : &modules[j].task;
            if (image->memfd >= 0)
                munmap(image->page_begin + delta, image->length);
        }
    }
    return -ENOMEM;
}

static void relocate(const uintptr_t *slots, size_t count, intptr_t slot_delta, intptr_t value_delta)
{
    for (size_t i = 0; i < count; i++) {
        uintptr_t *slot = (uintptr_t *)(slots[i] + (uintptr_t)slot_delta);
        if (in_task_range(*slot)) /* a constructor may have stored something else there */
            *slot += (uintptr_t)value_delta;
    }
}

static task_t *task_of(intptr_t task_delta)
{
    size_t slot = (size_t)(-task_delta / (intptr_t)stride) - 1;
    mpcrt_spin_lock(&tasks_lock);
    task_t *t = slot < task_capacity ? tasks[slot] : NULL;
    mpcrt_spin_unlock(&tasks_lock);
    return t;
}

static int remember_task(long slot, task_t *t)
{
    mpcrt_spin_lock(&tasks_lock);
    if ((size_t)slot >= task_capacity) {
        size_t capacity = task_capacity ? task_capacity : 64;
        while (capacity <= (size_t)slot)
            capacity *= 2;
        task_t **grown = realloc(tasks, capacity * sizeof *grown);
        if (!grown) {
            mpcrt_spin_unlock(&tasks_lock);
            return -ENOMEM;
        }
        memset(grown + task_capacity, 0, (capacity - task_capacity) * sizeof *grown);
        tasks = grown;
        task_capacity = capacity;
    }
    tasks[slot] = t;
    mpcrt_spin_unlock(&tasks_lock);
    return 0;
}

int mpcrt_priv_task_create(intptr_t *task_delta)
{
    *task_delta = 0;
    if (!enabled)
        return 0;
    task_t *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    intptr_t delta;
    long slot = map_copies(false, &delta);
    if (slot < 0) {
        free(t);
        return (int)slot;
    }
    for (int i = 0; i < nmodules; i++)
        relocate(modules[i].task_slots, modules[i].ntask_slots, delta, delta);
    t->task_delta = delta;
    mpcrt_mutex_init(&t->lock);
    int rc = remember_task(slot, t);
    if (rc == 0)
        *task_delta = delta;
    return rc;
}

static bool has_ult_data(void)
{
    for (int i = 0; i < nmodules; i++)
        if (modules[i].ult.memfd >= 0)
            return true;
    return false;
}

int mpcrt_priv_thread_delta(intptr_t task_delta, int thread_num, intptr_t *ult_delta)
{
    *ult_delta = 0;
    if (!enabled || !task_delta || thread_num < 0 || !has_ult_data())
        return 0;
    task_t *t = task_of(task_delta);
    if (!t)
        return -EINVAL;
    int rc = 0;
    mpcrt_mutex_lock(&t->lock);
    if (thread_num >= t->nthreads) {
        int n = thread_num + 8;
        intptr_t *grown = realloc(t->thread_deltas, (size_t)n * sizeof *grown);
        if (grown) {
            memset(grown + t->nthreads, 0, (size_t)(n - t->nthreads) * sizeof *grown);
            t->thread_deltas = grown;
            t->nthreads = n;
        } else {
            rc = -ENOMEM;
        }
    }
    if (rc == 0 && !t->thread_deltas[thread_num]) {
        intptr_t delta;
        long slot = map_copies(true, &delta);
        if (slot < 0) {
            rc = (int)slot;
        } else {
            for (int i = 0; i < nmodules; i++) /* ULT slots point to task data: relocate to this task */
                relocate(modules[i].ult_slots, modules[i].nult_slots, delta, task_delta);
            t->thread_deltas[thread_num] = delta;
        }
    }
    if (rc == 0)
        *ult_delta = t->thread_deltas[thread_num];
    mpcrt_mutex_unlock(&t->lock);
    return rc;
}

/* ------------------------------------------------------------------ calling user code for its owner */

extern __thread intptr_t __mpc_priv_delta, __mpc_ult_delta;

/* The TLS slots are what compiled code reads; the running ULT's fields are what the scheduler restores
 * after a switch, so both change (a callback that blocks keeps the owner's view when it resumes). */
static void set_view(intptr_t task_delta, intptr_t ult_delta)
{
    mpcrt_ult_t *self = mpcrt_ult_self();
    if (self)
        mpcrt_ult_set_priv_deltas(self, task_delta, ult_delta);
    __mpc_priv_delta = task_delta;
    __mpc_ult_delta = ult_delta;
}

void mpcrt_priv_enter(const mpcrt_ult_t *owner, mpcrt_priv_view_t *saved)
{
    saved->task_delta = __mpc_priv_delta;
    saved->ult_delta = __mpc_ult_delta;
    intptr_t task_delta = 0, ult_delta = 0;
    if (owner)
        mpcrt_ult_get_priv_deltas(owner, &task_delta, &ult_delta);
    set_view(task_delta, ult_delta);
}

void mpcrt_priv_leave(const mpcrt_priv_view_t *saved)
{
    set_view(saved->task_delta, saved->ult_delta);
}

void mpcrt_priv_view_self(mpcrt_priv_view_t *view)
{
    view->task_delta = __mpc_priv_delta;
    view->ult_delta = __mpc_ult_delta;
}

void mpcrt_priv_enter_view(const mpcrt_priv_view_t *view, mpcrt_priv_view_t *saved)
{
    saved->task_delta = __mpc_priv_delta;
    saved->ult_delta = __mpc_ult_delta;
    set_view(view->task_delta, view->ult_delta);
}

/* ------------------------------------------------------------------ C++ dynamic initialization */

/* Set while some rank runs its C++ initializers: otherwise __cxa_atexit forwards at once. */
static _Atomic int capturing;

int mpcrt_priv_run_initializers(intptr_t task_delta)
{
    if (!enabled || !task_delta)
        return 0;
    task_t *t = task_of(task_delta);
    mpcrt_ult_t *self = mpcrt_ult_self();
    if (!t || !self)
        return -EINVAL;
    /* Destructors the initializers register with __cxa_atexit belong to this rank: captured below. */
    mpcrt_ult_set_slot(self, MPCRT_ULT_SLOT_PRIV, t);
    atomic_fetch_add(&capturing, 1);
    for (int i = nmodules - 1; i >= 0; i--) { /* registration is LIFO: the executable was first */
        const mpcrt_priv_module_t *d = modules[i].desc;
        for (void (**init)(void) = d->init_begin; init && init < d->init_end; init++)
            (*init)();
    }
    atomic_fetch_sub(&capturing, 1);
    mpcrt_ult_set_slot(self, MPCRT_ULT_SLOT_PRIV, NULL);
    return 0;
}

void mpcrt_priv_run_finalizers(intptr_t task_delta)
{
    task_t *t = enabled && task_delta ? task_of(task_delta) : NULL;
    if (!t)
        return;
    while (t->ndtors > 0) { /* reverse order of construction, as at exit */
        struct dtor d = t->dtors[--t->ndtors];
        d.fn(d.arg);
    }
}

typedef int (*cxa_atexit_fn)(void (*)(void *), void *, void *);

/* Interposes libc's __cxa_atexit (libmpcrt precedes libc in every program's lookup order): while a rank
 * runs its C++ initializers, the destructors they register run when that rank ends, on its own copy.
 * Sanitizer runtimes call it while they initialize, before any instrumented code may run: the fast path
 * touches nothing but a plain flag and is not instrumented. */
__attribute__((visibility("default"), no_sanitize("thread", "address", "undefined"))) int
__cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    task_t *t = NULL;
    if (__atomic_load_n((int *)&capturing, __ATOMIC_ACQUIRE)) {
        mpcrt_ult_t *self = mpcrt_ult_self();
        t = self ? mpcrt_ult_slot(self, MPCRT_ULT_SLOT_PRIV) : NULL;
    }
    if (t) {
        if (t->ndtors == t->dtor_capacity) {
            size_t capacity = t->dtor_capacity ? t->dtor_capacity * 2 : 16;
            struct dtor *grown = realloc(t->dtors, capacity * sizeof *grown);
            if (!grown)
                return -1;
            t->dtors = grown;
            t->dtor_capacity = capacity;
        }
        t->dtors[t->ndtors++] = (struct dtor){fn, arg};
        return 0;
    }
    static cxa_atexit_fn real;
    if (!real)
        real = (cxa_atexit_fn)dlsym(RTLD_NEXT, "__cxa_atexit");
    return real ? real(fn, arg, dso) : -1;
}
