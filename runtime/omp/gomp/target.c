/* GOMP entry points of target and teams: host fallback (no offload device), data mapping without copies,
 * offload image registration accepted and ignored, and the error/warning directives. */
#include "gomp.h"

#include <stdio.h>
#include <stdlib.h>

GOMP_ENTRY void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs,
                            size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)kinds;
    omp_target_run(omp_self(), fn, mapnum, hostaddrs, sizes, NULL, 0, NULL, NULL);
}

GOMP_ENTRY void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                                unsigned short *kinds, unsigned int flags, void **depend, void **args)
{
    (void)device;
    omp_target_run(omp_self(), fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
}

GOMP_ENTRY void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

GOMP_ENTRY void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                     unsigned short *kinds)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

GOMP_ENTRY void GOMP_target_end_data(void)
{
}

GOMP_ENTRY void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                                   unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

GOMP_ENTRY void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                       unsigned short *kinds, unsigned int flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend)
        omp_taskwait_depend(omp_self(), depend);
}

GOMP_ENTRY void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                            unsigned short *kinds, unsigned int flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend)
        omp_taskwait_depend(omp_self(), depend);
}

GOMP_ENTRY void GOMP_teams(unsigned int num_teams, unsigned int thread_limit)
{
    (void)num_teams;
    omp_teams4(omp_self(), 1, 1, thread_limit, true);
}

GOMP_ENTRY bool GOMP_teams4(unsigned int num_teams_lower, unsigned int num_teams_upper, unsigned int thread_limit,
                            bool first)
{
    return omp_teams4(omp_self(), num_teams_lower, num_teams_upper, thread_limit, first);
}

GOMP_ENTRY void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
                               unsigned flags)
{
    omp_teams_reg(omp_self(), fn, data, num_teams, thread_limit, flags);
}

GOMP_ENTRY void GOMP_offload_register(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

GOMP_ENTRY void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

GOMP_ENTRY void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                                          const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

GOMP_ENTRY void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                            const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

/* The error directive (a warning severity returns). The messages keep libgomp's wording, which programs
 * and test suites match. */
GOMP_ENTRY void GOMP_warning(const char *msg, size_t len)
{
    if (msg)
        fprintf(stderr, "libgomp: error directive encountered: %.*s\n", (int)len, msg);
    else
        fprintf(stderr, "libgomp: error directive encountered\n");
}

GOMP_ENTRY void GOMP_error(const char *msg, size_t len)
{
    if (msg)
        fprintf(stderr, "libgomp: fatal error: error directive encountered: %.*s\n", (int)len, msg);
    else
        fprintf(stderr, "libgomp: fatal error: error directive encountered\n");
    exit(EXIT_FAILURE);
}
