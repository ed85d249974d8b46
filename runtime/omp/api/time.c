/* omp_get_wtime and omp_get_wtick: the monotonic clock (OpenMP 5.1 section 3.10). */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <time.h>

OMP_EXPORT double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

OMP_EXPORT double omp_get_wtick(void)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
