/* The Fortran omp_lib entry points: the names gfortran calls for the omp_lib module's procedures that are
 * not bind(C) (the C name plus an underscore; `_8_` for the integer(8)/logical(8) forms of the generic
 * interfaces). Arguments come by reference, LOGICAL is an integer of the same kind (non-zero is true) and
 * strings come with their length as a trailing hidden argument, without a terminating NUL. Each one calls
 * the C routine. Layouts follow gfortran's omp_lib kinds: omp_lock_kind = 4 holds our 4-byte omp_lock_t
 * itself, omp_nest_lock_kind = 8 is too small for omp_nest_lock_t, so it holds a pointer to one allocated
 * by omp_init_nest_lock_ (as libgomp does); omp_alloctrait_t is {integer(4) key, integer(8) value}, as in C.
 */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <stdlib.h>
#include <string.h>

#define F OMP_EXPORT

_Static_assert(sizeof(omp_lock_t) == 4, "omp_lock_kind is 4: a Fortran lock variable holds omp_lock_t");
_Static_assert(sizeof(omp_nest_lock_t) > 8, "omp_nest_lock_kind is 8: the variable holds a pointer");

/* ---- OMP_1.0, OMP_2.0 */
F void omp_set_num_threads_(const int32_t *n)
{
    omp_set_num_threads(*n);
}
F void omp_set_num_threads_8_(const int64_t *n)
{
    omp_set_num_threads((int)*n);
}
F int32_t omp_get_num_threads_(void)
{
    return omp_get_num_threads();
}
F int32_t omp_get_max_threads_(void)
{
    return omp_get_max_threads();
}
F int32_t omp_get_thread_num_(void)
{
    return omp_get_thread_num();
}
F int32_t omp_get_num_procs_(void)
{
    return omp_get_num_procs();
}
F int32_t omp_in_parallel_(void)
{
    return omp_in_parallel();
}
F void omp_set_dynamic_(const int32_t *set)
{
    omp_set_dynamic(*set != 0);
}
F void omp_set_dynamic_8_(const int64_t *set)
{
    omp_set_dynamic(*set != 0);
}
F int32_t omp_get_dynamic_(void)
{
    return omp_get_dynamic();
}
F void omp_set_nested_(const int32_t *set)
{
    omp_set_nested(*set != 0);
}
F void omp_set_nested_8_(const int64_t *set)
{
    omp_set_nested(*set != 0);
}
F int32_t omp_get_nested_(void)
{
    return omp_get_nested();
}
F double omp_get_wtime_(void)
{
    return omp_get_wtime();
}
F double omp_get_wtick_(void)
{
    return omp_get_wtick();
}

/* ---- OMP_3.0 */
F void omp_set_schedule_(const int32_t *kind, const int32_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk);
}
F void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, (int)*chunk);
}
F void omp_get_schedule_(int32_t *kind, int32_t *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (int32_t)k;
    *chunk = c;
}
F void omp_get_schedule_8_(int32_t *kind, int64_t *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (int32_t)k;
    *chunk = c;
}
F int32_t omp_get_thread_limit_(void)
{
    return omp_get_thread_limit();
}
F void omp_set_max_active_levels_(const int32_t *n)
{
    omp_set_max_active_levels(*n);
}
F void omp_set_max_active_levels_8_(const int64_t *n)
{
    omp_set_max_active_levels((int)*n);
}
F int32_t omp_get_max_active_levels_(void)
{
    return omp_get_max_active_levels();
}
F int32_t omp_get_level_(void)
{
    return omp_get_level();
}
F int32_t omp_get_ancestor_thread_num_(const int32_t *level)
{
    return omp_get_ancestor_thread_num(*level);
}
F int32_t omp_get_ancestor_thread_num_8_(const int64_t *level)
{
    return omp_get_ancestor_thread_num((int)*level);
}
F int32_t omp_get_team_size_(const int32_t *level)
{
    return omp_get_team_size(*level);
}
F int32_t omp_get_team_size_8_(const int64_t *level)
{
    return omp_get_team_size((int)*level);
}
F int32_t omp_get_active_level_(void)
{
    return omp_get_active_level();
}

F void omp_init_lock_(omp_lock_t *lock)
{
    omp_init_lock(lock);
}
F void omp_destroy_lock_(omp_lock_t *lock)
{
    omp_destroy_lock(lock);
}
F void omp_set_lock_(omp_lock_t *lock)
{
    omp_set_lock(lock);
}
F void omp_unset_lock_(omp_lock_t *lock)
{
    omp_unset_lock(lock);
}
F int32_t omp_test_lock_(omp_lock_t *lock)
{
    return omp_test_lock(lock);
}

F void omp_init_nest_lock_(omp_nest_lock_t **lock)
{
    *lock = malloc(sizeof **lock);
    if (!*lock)
        omp_fatal("out of memory for a Fortran nestable lock");
    omp_init_nest_lock(*lock);
}
F void omp_destroy_nest_lock_(omp_nest_lock_t **lock)
{
    omp_destroy_nest_lock(*lock);
    free(*lock);
    *lock = NULL;
}
F void omp_set_nest_lock_(omp_nest_lock_t **lock)
{
    omp_set_nest_lock(*lock);
}
F void omp_unset_nest_lock_(omp_nest_lock_t **lock)
{
    omp_unset_nest_lock(*lock);
}
F int32_t omp_test_nest_lock_(omp_nest_lock_t **lock)
{
    return omp_test_nest_lock(*lock);
}

/* ---- OMP_3.1, OMP_4.0 */
F int32_t omp_in_final_(void)
{
    return omp_in_final();
}
F int32_t omp_get_cancellation_(void)
{
    return omp_get_cancellation();
}
F int32_t omp_get_proc_bind_(void)
{
    return (int32_t)omp_get_proc_bind();
}
F void omp_set_default_device_(const int32_t *device)
{
    omp_set_default_device(*device);
}
F void omp_set_default_device_8_(const int64_t *device)
{
    omp_set_default_device((int)*device);
}
F int32_t omp_get_default_device_(void)
{
    return omp_get_default_device();
}
F int32_t omp_get_num_devices_(void)
{
    return omp_get_num_devices();
}
F int32_t omp_get_num_teams_(void)
{
    return omp_get_num_teams();
}
F int32_t omp_get_team_num_(void)
{
    return omp_get_team_num();
}
F int32_t omp_is_initial_device_(void)
{
    return omp_is_initial_device();
}

/* ---- OMP_4.5 */
F int32_t omp_get_max_task_priority_(void)
{
    return omp_get_max_task_priority();
}
F int32_t omp_get_initial_device_(void)
{
    return omp_get_initial_device();
}
F int32_t omp_get_num_places_(void)
{
    return omp_get_num_places();
}
F int32_t omp_get_place_num_procs_(const int32_t *place)
{
    return omp_get_place_num_procs(*place);
}
F int32_t omp_get_place_num_procs_8_(const int64_t *place)
{
    return omp_get_place_num_procs((int)*place);
}
F void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids)
{
    omp_get_place_proc_ids(*place, ids);
}
F void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids)
{
    int n = omp_get_place_num_procs((int)*place);
    if (n <= 0)
        return;
    int *tmp = malloc(sizeof(int) * (size_t)n);
    if (!tmp)
        omp_fatal("out of memory in omp_get_place_proc_ids");
    omp_get_place_proc_ids((int)*place, tmp);
    for (int i = 0; i < n; i++)
        ids[i] = tmp[i];
    free(tmp);
}
F int32_t omp_get_place_num_(void)
{
    return omp_get_place_num();
}
F int32_t omp_get_partition_num_places_(void)
{
    return omp_get_partition_num_places();
}
F void omp_get_partition_place_nums_(int32_t *nums)
{
    omp_get_partition_place_nums(nums);
}
F void omp_get_partition_place_nums_8_(int64_t *nums)
{
    int n = omp_get_partition_num_places();
    if (n <= 0)
        return;
    int *tmp = malloc(sizeof(int) * (size_t)n);
    if (!tmp)
        omp_fatal("out of memory in omp_get_partition_place_nums");
    omp_get_partition_place_nums(tmp);
    for (int i = 0; i < n; i++)
        nums[i] = tmp[i];
    free(tmp);
}

/* ---- OMP_5.0: affinity format strings (Fortran strings: pointer + length, no NUL) */

static char *c_string(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        omp_fatal("out of memory copying a Fortran string");
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* Copies a C string into a Fortran buffer, blank-padded (Fortran assignment semantics); returns the full
 * length of the C string, which may exceed the buffer. */
static int32_t to_fortran(char *buf, size_t buf_len, const char *s)
{
    size_t len = strlen(s);
    size_t n = len < buf_len ? len : buf_len;
    memcpy(buf, s, n);
    if (n < buf_len)
        memset(buf + n, ' ', buf_len - n);
    return (int32_t)len;
}

F void omp_set_affinity_format_(const char *format, size_t format_len)
{
    char *c = c_string(format, format_len);
    omp_set_affinity_format(c);
    free(c);
}

F int32_t omp_get_affinity_format_(char *buffer, size_t buffer_len)
{
    size_t len = omp_get_affinity_format(NULL, 0);
    char *c = malloc(len + 1);
    if (!c)
        omp_fatal("out of memory in omp_get_affinity_format");
    omp_get_affinity_format(c, len + 1);
    int32_t r = to_fortran(buffer, buffer_len, c);
    free(c);
    return r;
}

F void omp_display_affinity_(const char *format, size_t format_len)
{
    char *c = format_len ? c_string(format, format_len) : NULL; /* empty: the affinity-format-var */
    omp_display_affinity(c);
    free(c);
}

F int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len, size_t format_len)
{
    char *c = format_len ? c_string(format, format_len) : NULL;
    size_t len = omp_capture_affinity(NULL, 0, c);
    char *out = malloc(len + 1);
    if (!out)
        omp_fatal("out of memory in omp_capture_affinity");
    omp_capture_affinity(out, len + 1, c);
    int32_t r = to_fortran(buffer, buffer_len, out);
    free(out);
    free(c);
    return r;
}

F int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device)
{
    return omp_pause_resource((omp_pause_resource_t)*kind, *device);
}
F int32_t omp_pause_resource_all_(const int32_t *kind)
{
    return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

/* ---- OMP_5.0.1, OMP_5.0.2 */
F int32_t omp_get_supported_active_levels_(void)
{
    return omp_get_supported_active_levels();
}
F void omp_fulfill_event_(const omp_event_handle_t *event)
{
    omp_fulfill_event(*event);
}
F omp_allocator_handle_t omp_init_allocator_(const omp_memspace_handle_t *memspace, const int32_t *ntraits,
                                             const omp_alloctrait_t *traits)
{
    return omp_init_allocator(*memspace, *ntraits, traits);
}
F omp_allocator_handle_t omp_init_allocator_8_(const omp_memspace_handle_t *memspace, const int64_t *ntraits,
                                               const omp_alloctrait_t *traits)
{
    return omp_init_allocator(*memspace, (int)*ntraits, traits);
}
F void omp_destroy_allocator_(const omp_allocator_handle_t *allocator)
{
    omp_destroy_allocator(*allocator);
}
F void omp_set_default_allocator_(const omp_allocator_handle_t *allocator)
{
    omp_set_default_allocator(*allocator);
}
F omp_allocator_handle_t omp_get_default_allocator_(void)
{
    return omp_get_default_allocator();
}
F int32_t omp_get_device_num_(void)
{
    return omp_get_device_num();
}

/* ---- OMP_5.1 */
F void omp_display_env_(const int32_t *verbose)
{
    omp_display_env(*verbose != 0);
}
F void omp_display_env_8_(const int64_t *verbose)
{
    omp_display_env(*verbose != 0);
}
F void omp_set_num_teams_(const int32_t *n)
{
    omp_set_num_teams(*n);
}
F void omp_set_num_teams_8_(const int64_t *n)
{
    omp_set_num_teams((int)*n);
}
F int32_t omp_get_max_teams_(void)
{
    return omp_get_max_teams();
}
F void omp_set_teams_thread_limit_(const int32_t *n)
{
    omp_set_teams_thread_limit(*n);
}
F void omp_set_teams_thread_limit_8_(const int64_t *n)
{
    omp_set_teams_thread_limit((int)*n);
}
F int32_t omp_get_teams_thread_limit_(void)
{
    return omp_get_teams_thread_limit();
}
