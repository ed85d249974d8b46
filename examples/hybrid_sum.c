/* hybrid_sum: MPI ranks that each sum their share of 1..N with an OpenMP parallel loop, then check the
 * partial sum against the closed form. Every rank reports; the job fails if any sum is wrong.
 *     mpcc -fopenmp hybrid_sum.c -o hybrid_sum && mpcrun -n 4 ./hybrid_sum */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 10000000L

static long long closed_form(long first, long last) /* sum of first..last */
{
    return (long long)(first + last) * (last - first + 1) / 2;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long first = 1 + N * rank / size, last = N * (rank + 1) / size;
    long long sum = 0;
    int threads = 0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp for
        for (long i = first; i <= last; i++)
            sum += i;
    }
    int ok = sum == closed_form(first, last);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: sum(%ld..%ld) = %lld with %d OpenMP threads: %s\n", rank, size, first, last, sum,
           threads, ok ? "correct" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
