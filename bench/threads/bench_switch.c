/* Context-switch cost: the raw assembly switch, a scheduler yield between two ULTs of one VP, and
 * glibc's swapcontext as the reference a user-level-thread library is usually compared with.
 * Prints: name median_ns min_ns max_ns (per switch, over REPS repetitions). */
#include "../../runtime/threads/context.h"
#include "../../runtime/threads/sched.h"
#include "bench_util.h"

#include <stdio.h>
#include <ucontext.h>

enum { REPS = 7, SWITCHES = 2000000 };

static void *main_sp, *other_sp;

static void raw_partner(void *arg)
{
    (void)arg;
    for (;;)
        mpcrt_ctx_switch(&other_sp, main_sp);
}

static double raw_switch_ns(void)
{
    static char stack[64 * 1024] __attribute__((aligned(64)));
    other_sp = mpcrt_ctx_make(stack + sizeof stack, raw_partner, NULL);
    double t0 = now_ns();
    for (int i = 0; i < SWITCHES / 2; i++)
        mpcrt_ctx_switch(&main_sp, other_sp); /* two switches per iteration */
    return (now_ns() - t0) / SWITCHES;
}

static ucontext_t uc_main, uc_other;

static void uc_partner(void)
{
    for (;;)
        swapcontext(&uc_other, &uc_main);
}

static double swapcontext_ns(void)
{
    static char stack[64 * 1024];
    getcontext(&uc_other);
    uc_other.uc_stack.ss_sp = stack;
    uc_other.uc_stack.ss_size = sizeof stack;
    uc_other.uc_link = NULL;
    makecontext(&uc_other, uc_partner, 0);
    int n = SWITCHES / 10;
    double t0 = now_ns();
    for (int i = 0; i < n / 2; i++)
        swapcontext(&uc_main, &uc_other);
    return (now_ns() - t0) / n;
}

static void *yielder(void *arg)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++)
        mpcrt_yield();
    return NULL;
}

static double yield_ns(void)
{
    int n = SWITCHES / 2;
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = 0;
    mpcrt_ult_t *a, *b;
    double t0 = now_ns();
    mpcrt_ult_create(&a, yielder, &n, &attr);
    mpcrt_ult_create(&b, yielder, &n, &attr);
    mpcrt_ult_join(a, NULL);
    mpcrt_ult_join(b, NULL);
    return (now_ns() - t0) / SWITCHES;
}

static void report(const char *name, double (*fn)(void))
{
    double samples[REPS];
    fn(); /* warm-up */
    for (int r = 0; r < REPS; r++)
        samples[r] = fn();
    double med = median(samples, REPS);
    printf("%-28s %8.1f %8.1f %8.1f\n", name, med, samples[0], samples[REPS - 1]);
}

int main(void)
{
    if (mpcrt_sched_init() != 0)
        return 1;
    printf("%-28s %8s %8s %8s\n", "# switch (ns per switch)", "median", "min", "max");
    report("raw_asm_switch", raw_switch_ns);
    report("ult_yield_same_vp", yield_ns);
    report("glibc_swapcontext", swapcontext_ns);
    mpcrt_sched_finalize();
    return 0;
}
