/* MPI_Wtime and MPI_Wtick. clock_gettime(CLOCK_MONOTONIC) costs about 22-27 ns here (the vDSO reads the
 * kernel's clock page around its own rdtsc); one rdtsc costs about 9. Where the kernel itself keeps time
 * with the TSC (its clocksource is "tsc": the counter is invariant and agrees across cores), MPI_Wtime
 * reads the TSC and scales it. The scale is measured against the clock over the first CALIBRATE_S (5 ms)
 * after the first call (MPI_Wtime answers from the clock meanwhile, as cheaply), so no start-up waits for it.
 * Elsewhere, and with MPCRT_WTIME=clock, MPI_Wtime stays on the clock. Measured (one rank, a loop of
 * calls): 27 ns on the clock (Open MPI 29, MPICH 29), 12 ns on the TSC.
 * OSU's overlap formula charges one MPI_Wtime to the library per iteration (bench/coll/overlap.c). */
#include "../mpi_internal.h"
#include "../../threads/config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

enum { WT_UNSET, WT_CALIBRATING, WT_TSC, WT_CLOCK };

#define CALIBRATE_S 0.005
/* Added once when MPI_Wtime leaves the clock for the TSC: a thread that read the clock just before the
 * switch must not see an earlier time after it (the two are anchored tens of nanoseconds apart). */
#define SWITCH_MARGIN_S 1e-6

static struct {
    _Atomic int state;
    /* The calibration's anchor: written once, before state becomes WT_CALIBRATING (release). */
    uint64_t cal_tsc;
    double cal_t;    /* CLOCK_MONOTONIC_RAW, with cal_tsc */
    double cal_mono; /* CLOCK_MONOTONIC then: the cheap test of the calibration's end */
    /* The scale and its anchor: written once, before state becomes WT_TSC (release). */
    uint64_t tsc0;
    double t0, seconds_per_tick;
} wt;

static double clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double clock_now(void)
{
    return clock_read(CLOCK_MONOTONIC);
}

#if defined(__x86_64__)
/* A (clock, TSC) pair read as close together as possible: the TSC halfway through the clock read, from the
 * quickest of a few reads (a read the kernel preempted would skew the scale: 20 ms of calibration moved
 * 230 ppm on a loaded machine). The scale is measured on CLOCK_MONOTONIC_RAW, which NTP does not slew (up
 * to 500 ppm while it corrects). */
static double clock_and_tsc(clockid_t id, uint64_t *tsc)
{
    double best_t = 0;
    uint64_t best_window = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t before = __rdtsc();
        double t = clock_read(id);
        uint64_t after = __rdtsc();
        if (after - before < best_window) {
            best_window = after - before;
            best_t = t;
            *tsc = before + (after - before) / 2;
        }
    }
    return best_t;
}

static bool kernel_uses_tsc(void)
{
    const char *setting = mpcrt_config_str(MPCRT_CFG_WTIME);
    if (strcmp(setting, "clock") == 0)
        return false;
    if (strcmp(setting, "auto") != 0)
        fprintf(stderr, "mpcrt: MPCRT_WTIME=%s: expected auto or clock; using auto\n", setting);
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return false;
    char name[32] = "";
    bool tsc = fgets(name, sizeof name, f) && strcmp(name, "tsc\n") == 0;
    fclose(f);
    return tsc;
}
#endif

/* The first call: chooses the source and, for the TSC, anchors the calibration. Racing first calls agree
 * through the state's CAS. */
static void choose(void)
{
    int expected = WT_UNSET;
#if defined(__x86_64__)
    if (kernel_uses_tsc()) {
        uint64_t tsc;
        double t = clock_and_tsc(CLOCK_MONOTONIC_RAW, &tsc);
        int claim = WT_UNSET;
        /* Claimed with an intermediate value so that nobody reads tsc0/t0 half written. */
        if (atomic_compare_exchange_strong(&wt.state, &claim, -1)) {
            wt.cal_tsc = tsc;
            wt.cal_t = t;
            wt.cal_mono = clock_now();
            atomic_store_explicit(&wt.state, WT_CALIBRATING, memory_order_release);
        }
        return;
    }
#endif
    atomic_compare_exchange_strong(&wt.state, &expected, WT_CLOCK);
}

static __attribute__((noinline)) double wtime_slow(void)
{
    int state = atomic_load_explicit(&wt.state, memory_order_acquire);
    if (state == WT_UNSET) {
        choose();
        state = atomic_load_explicit(&wt.state, memory_order_acquire);
    }
#if defined(__x86_64__)
    if (state == WT_CALIBRATING) {
        /* As cheap as the clock alone until the calibration is due: benchmarks time themselves meanwhile. */
        double t = clock_now();
        int claim = WT_CALIBRATING;
        if (t - wt.cal_mono >= CALIBRATE_S && atomic_compare_exchange_strong(&wt.state, &claim, -2)) {
            /* One thread finishes: the scale from the RAW pairs, anchored at a CLOCK_MONOTONIC pair, the
             * margin ahead of every earlier reading. */
            uint64_t tsc;
            double raw = clock_and_tsc(CLOCK_MONOTONIC_RAW, &tsc);
            if (tsc > wt.cal_tsc) {
                wt.seconds_per_tick = (raw - wt.cal_t) / (double)(tsc - wt.cal_tsc);
                double anchor = clock_and_tsc(CLOCK_MONOTONIC, &wt.tsc0);
                wt.t0 = anchor + SWITCH_MARGIN_S;
                atomic_store_explicit(&wt.state, WT_TSC, memory_order_release);
            } else { /* a counter that went back */
                atomic_store_explicit(&wt.state, WT_CLOCK, memory_order_release);
            }
        }
        return t;
    }
    if (state == WT_TSC)
        return wt.t0 + (double)(int64_t)(__rdtsc() - wt.tsc0) * wt.seconds_per_tick;
#endif
    return clock_now(); /* WT_CLOCK, or a state another thread is writing (-1, -2) */
}

double PMPI_Wtime(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(atomic_load_explicit(&wt.state, memory_order_acquire) == WT_TSC, 1))
        return wt.t0 + (double)(int64_t)(__rdtsc() - wt.tsc0) * wt.seconds_per_tick;
#endif
    return wtime_slow();
}
MPCRT_PMPI_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    (void)PMPI_Wtime(); /* chooses the source */
#if defined(__x86_64__)
    if (atomic_load_explicit(&wt.state, memory_order_acquire) == WT_TSC)
        return wt.seconds_per_tick;
#endif
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPCRT_PMPI_ALIAS(Wtick)
