/* Privatization with OpenMP inside ranks: a rank's threads share the rank's copy of its globals, every
 * team-creating construct (parallel, parallel for with a dynamic schedule, sections) propagates it, and
 * threadprivate/__thread variables are per OpenMP thread (also in two nested teams running at once) and
 * persist across regions of the rank. */
#include <mpi.h>
#include <omp.h>

#include "check.h"

int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));

int total = 0;
int hits = 0;
int sections_done = 0;
int tp = 1;
#pragma omp threadprivate(tp)
__thread int tls_value = 2;

enum { THREADS = 2, ITERATIONS = 100 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

#pragma omp parallel num_threads(THREADS)
    {
#pragma omp atomic
        total += rank + 1;
        tp = 1000 * rank + omp_get_thread_num();
        tls_value = 2000 * rank + omp_get_thread_num();
    }
#pragma omp parallel for schedule(dynamic, 3) num_threads(THREADS)
    for (int i = 0; i < ITERATIONS; i++) {
#pragma omp atomic
        hits++;
    }
#pragma omp parallel sections num_threads(THREADS)
    {
#pragma omp section
        {
#pragma omp atomic
            sections_done += 1;
        }
#pragma omp section
        {
#pragma omp atomic
            sections_done += 10;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rank, total == THREADS * (rank + 1));
    CHECK(rank, hits == ITERATIONS);
    CHECK(rank, sections_done == 11);
    int persisted = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : persisted)
    persisted += tp == 1000 * rank + omp_get_thread_num() && tls_value == 2000 * rank + omp_get_thread_num();
    CHECK(rank, persisted == THREADS);

    /* Two nested teams alive at once: their members of equal thread number have distinct copies. Each
     * writes its own value, all four wait for each other (yielding: members may share a VP), then read. */
    omp_set_max_active_levels(2);
    int nested_ok = 0, nested_threads = 0, arrived = 0;
#pragma omp parallel num_threads(2) reduction(+ : nested_ok, nested_threads)
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : nested_ok, nested_threads)
        {
            int mine = 100000 * (rank + 1) + 10 * outer + omp_get_thread_num();
            tp = mine;
            tls_value = -mine;
#pragma omp atomic
            arrived++;
            for (;;) {
                int seen;
#pragma omp atomic read
                seen = arrived;
                if (seen == 4)
                    break;
#pragma omp taskyield
            }
            nested_ok += tp == mine && tls_value == -mine;
            nested_threads += omp_get_num_threads() == 2 && omp_get_level() == 2;
        }
    }
    CHECK(rank, nested_threads == 4);
    CHECK(rank, nested_ok == 4);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d checks, %d failures\n", size, priv_checks, priv_failures);
    MPI_Finalize();
    return priv_failures != 0;
}
