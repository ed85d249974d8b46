/* Cross-VP wake-up latency: two ULTs on different VPs hand a token back and forth, each blocking until
 * woken (one-way latency = round trip / 2); the same with two pthreads on a futex-based condition
 * variable, and with both ULTs on one VP. Prints: name median_ns min_ns max_ns per one-way hand-off. */
#define _GNU_SOURCE
#include "../../runtime/threads/sched.h"
#include "bench_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

enum { REPS = 7, ROUNDS = 20000 };

typedef struct {
    mpcrt_mutex_t lock;
    mpcrt_cond_t cond;
    long turn;
} token_t;

typedef struct {
    token_t *t;
    int parity;
} side_t;

static void *pass_token(void *arg)
{
    side_t *s = arg;
    for (long i = 0; i < ROUNDS; i++) {
        mpcrt_mutex_lock(&s->t->lock);
        while ((s->t->turn & 1) != s->parity)
            mpcrt_cond_wait(&s->t->cond, &s->t->lock);
        s->t->turn++;
        mpcrt_cond_signal(&s->t->cond);
        mpcrt_mutex_unlock(&s->t->lock);
    }
    return NULL;
}

static double ult_pair_ns(int vp_a, int vp_b)
{
    token_t t = {MPCRT_MUTEX_INITIALIZER, MPCRT_COND_INITIALIZER, 0};
    side_t a = {&t, 0}, b = {&t, 1};
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    mpcrt_ult_t *ua, *ub;
    double t0 = now_ns();
    attr.vp = vp_a;
    mpcrt_ult_create(&ua, pass_token, &a, &attr);
    attr.vp = vp_b;
    mpcrt_ult_create(&ub, pass_token, &b, &attr);
    mpcrt_ult_join(ua, NULL);
    mpcrt_ult_join(ub, NULL);
    return (now_ns() - t0) / (2.0 * ROUNDS);
}

static double ult_cross_vp_ns(void) { return ult_pair_ns(0, mpcrt_sched_num_vps() - 1); }
static double ult_same_vp_ns(void) { return ult_pair_ns(0, 0); }

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    long turn;
    int parity;
    int cpu;
} pt_side_t;

static pthread_mutex_t pt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pt_cond = PTHREAD_COND_INITIALIZER;
static long pt_turn;

static void *pt_pass(void *arg)
{
    int parity = (int)(intptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(parity % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (long i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&pt_lock);
        while ((pt_turn & 1) != parity)
            pthread_cond_wait(&pt_cond, &pt_lock);
        pt_turn++;
        pthread_cond_signal(&pt_cond);
        pthread_mutex_unlock(&pt_lock);
    }
    return NULL;
}

static double pthread_pair_ns(void)
{
    pt_turn = 0;
    pthread_t a, b;
    double t0 = now_ns();
    pthread_create(&a, NULL, pt_pass, (void *)0);
    pthread_create(&b, NULL, pt_pass, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return (now_ns() - t0) / (2.0 * ROUNDS);
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
    printf("%-28s %8s %8s %8s\n", "# hand-off (ns one way)", "median", "min", "max");
    report("ult_cross_vp_cond", ult_cross_vp_ns);
    report("ult_same_vp_cond", ult_same_vp_ns);
    report("pthread_cross_core_cond", pthread_pair_ns);
    mpcrt_sched_finalize();
    return 0;
}
