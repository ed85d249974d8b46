/* ULT creation + join cost: from a ULT on the same VP (pooled descriptors and stacks), from a ULT for
 * another VP, and from a plain kernel thread; pthread_create+join as the reference.
 * Prints: name median_ns min_ns max_ns per create+join. */
#include "../../runtime/threads/sched.h"
#include "bench_util.h"

#include <pthread.h>
#include <stdio.h>

enum { REPS = 7, BATCH = 1000, ROUNDS = 20 };

static void *nothing(void *arg)
{
    return arg;
}

static int target_vp;

static void *create_join_batches(void *arg)
{
    (void)arg;
    static mpcrt_ult_t *u[BATCH];
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = target_vp;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < BATCH; i++)
            mpcrt_ult_create(&u[i], nothing, NULL, &attr);
        for (int i = 0; i < BATCH; i++)
            mpcrt_ult_join(u[i], NULL);
    }
    return NULL;
}

static double from_ult_ns(int vp)
{
    target_vp = vp;
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = 0;
    mpcrt_ult_t *driver;
    double t0 = now_ns();
    mpcrt_ult_create(&driver, create_join_batches, NULL, &attr);
    mpcrt_ult_join(driver, NULL);
    return (now_ns() - t0) / (BATCH * ROUNDS);
}

static double same_vp_ns(void) { return from_ult_ns(0); }
static double other_vp_ns(void) { return from_ult_ns(mpcrt_sched_num_vps() - 1); }

static double from_kernel_thread_ns(void)
{
    target_vp = 0;
    double t0 = now_ns();
    create_join_batches(NULL);
    return (now_ns() - t0) / (BATCH * ROUNDS);
}

static double pthread_ns(void)
{
    enum { N = 2000 };
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
    }
    return (now_ns() - t0) / N;
}

static void report(const char *name, double (*fn)(void))
{
    double samples[REPS];
    fn();
    for (int r = 0; r < REPS; r++)
        samples[r] = fn();
    double med = median(samples, REPS);
    printf("%-28s %8.1f %8.1f %8.1f\n", name, med, samples[0], samples[REPS - 1]);
}

int main(void)
{
    if (mpcrt_sched_init() != 0)
        return 1;
    printf("%-28s %8s %8s %8s\n", "# create+join (ns)", "median", "min", "max");
    report("ult_same_vp", same_vp_ns);
    report("ult_other_vp", other_vp_ns);
    report("ult_from_kernel_thread", from_kernel_thread_ns);
    report("pthread_create_join", pthread_ns);
    mpcrt_sched_finalize();
    return 0;
}
