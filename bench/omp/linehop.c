/* The machine's cross-core state: the one-way time of a cache line between the first two CPUs this process
 * may use (a ping-pong of two pinned threads, median over batches), in nanoseconds. On the 2-vCPU VMs
 * these benchmarks run on it is 30-40, 60-75 or 260-280 ns, and the host moves the vCPUs from one state to
 * another every few minutes; every OpenMP construct that crosses cores costs a few such hops, so a
 * runtime measured in one state cannot be compared with another measured in another (bench/omp/run
 * keeps only the rounds whose state did not change). Prints 0 with fewer than two CPUs.
 *     linehop [batches]                                                      (plain C, no OpenMP) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HOPS_PER_BATCH 20

static _Alignas(64) _Atomic long ping;
static _Alignas(64) _Atomic long pong;
static long total;

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *answer(void *arg)
{
    pin(*(int *)arg);
    for (long i = 1; i <= total; i++) {
        while (atomic_load_explicit(&ping, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&pong, i, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 2000;
    if (batches < 1)
        batches = 1;
    cpu_set_t set;
    int cpus[2], found = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
            if (CPU_ISSET(c, &set))
                cpus[found++] = c;
    if (found < 2) {
        printf("0\n");
        return 0;
    }
    double *samples = malloc(sizeof *samples * (size_t)batches);
    if (!samples)
        return 1;
    total = (long)batches * HOPS_PER_BATCH;
    pin(cpus[0]);
    pthread_t peer;
    if (pthread_create(&peer, NULL, answer, &cpus[1]) != 0)
        return 1;
    long k = 1;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (int i = 0; i < HOPS_PER_BATCH; i++, k++) {
            atomic_store_explicit(&ping, k, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) != k)
                ;
        }
        samples[b] = (now_ns() - t0) / HOPS_PER_BATCH / 2; /* a round trip is two one-way hops */
    }
    pthread_join(peer, NULL);
    qsort(samples, (size_t)batches, sizeof *samples, cmp);
    printf("%.1f\n", samples[batches / 2]);
    free(samples);
    return 0;
}
