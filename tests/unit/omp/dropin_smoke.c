/* Built by plain `gcc -fopenmp` (linked with the system's libgomp) and run with mpcrt's lib/ first in
 * LD_LIBRARY_PATH: the program must run on mpcrt, which answers to libgomp.so.1 with libgomp's symbol
 * versions. Prints which runtime it ran on. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 3)
    for (int i = 0; i < 1000; i++)
        sum += i;
    int tasks = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 10; i++) {
#pragma omp task shared(tasks)
        {
#pragma omp atomic
            tasks++;
        }
    }
    if (sum != 499500 || tasks != 10)
        return 1;
    printf("runtime: %s\n", dlsym(RTLD_DEFAULT, "mpcrt_sched_init") ? "mpcrt" : "other");
    return 0;
}
