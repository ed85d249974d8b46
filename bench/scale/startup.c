/* Start-up and memory per rank: MPI_Init, one barrier, MPI_Finalize. The driver times the whole job
 * (launcher included: what a user waits for); rank 0 prints "job ranks N", "job processes P" and
 * "job peak_kib K", the sum of the peak resident set (VmHWM) of the distinct processes that hold ranks (the
 * launcher's own memory is not counted). Ranks sharing a process (thread mode) report the same pid, counted
 * once. No globals: it runs unprivatized in thread mode. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long peak_kib(void)
{
    char line[256];
    long kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

static int by_pid(const void *a, const void *b)
{
    long x = ((const long *)a)[0], y = ((const long *)b)[0];
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    long mine[2] = {(long)getpid(), peak_kib()};
    long *all = rank == 0 ? malloc(sizeof mine * (size_t)size) : NULL;
    MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)size, sizeof mine, by_pid);
        long total = 0, processes = 0, process_peak = 0;
        for (int i = 0; i < size; i++) {
            long peak = all[2 * i + 1];
            if (i == 0 || all[2 * i] != all[2 * i - 2]) { /* a new process */
                processes++;
                total += peak;
                process_peak = peak;
            } else if (peak > process_peak) { /* same process: its peak is the largest any rank saw */
                total += peak - process_peak;
                process_peak = peak;
            }
        }
        printf("job ranks %d\njob processes %ld\njob peak_kib %ld\n", size, processes, total);
        free(all);
    }
    MPI_Finalize();
    return 0;
}
