/* Place queries and affinity display (OpenMP 5.1 sections 3.3 and 3.4). */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <stdio.h>
#include <string.h>

OMP_EXPORT int omp_get_num_places(void)
{
    omp_runtime_init();
    return omp_global.nplaces;
}

OMP_EXPORT int omp_get_place_num_procs(int place)
{
    omp_runtime_init();
    if (place < 0 || place >= omp_global.nplaces)
        return 0;
    return omp_global.place_first[place + 1] - omp_global.place_first[place];
}

OMP_EXPORT void omp_get_place_proc_ids(int place, int *ids)
{
    omp_runtime_init();
    if (place < 0 || place >= omp_global.nplaces)
        return;
    for (int k = omp_global.place_first[place]; k < omp_global.place_first[place + 1]; k++)
        *ids++ = omp_global.place_vps[k];
}

OMP_EXPORT int omp_get_place_num(void)
{
    return omp_self()->ts.place;
}

OMP_EXPORT int omp_get_partition_num_places(void)
{
    omp_thread_t *thr = omp_self();
    return thr->ts.part_len;
}

OMP_EXPORT void omp_get_partition_place_nums(int *places)
{
    omp_thread_t *thr = omp_self();
    for (int i = 0; i < thr->ts.part_len; i++)
        places[i] = (thr->ts.part_first + i) % omp_global.nplaces;
}

OMP_EXPORT void omp_set_affinity_format(const char *format)
{
    omp_runtime_init();
    snprintf(omp_global.affinity_format, sizeof omp_global.affinity_format, "%s", format);
}

OMP_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
    omp_runtime_init();
    size_t len = strlen(omp_global.affinity_format);
    if (size) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, omp_global.affinity_format, n);
        buffer[n] = '\0';
    }
    return len;
}

OMP_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    omp_thread_t *thr = omp_self();
    if (!format || !*format)
        format = omp_global.affinity_format;
    return omp_format_affinity(buffer, size, format, thr);
}

OMP_EXPORT void omp_display_affinity(const char *format)
{
    char line[1024];
    omp_capture_affinity(line, sizeof line, format);
    fprintf(stderr, "%s\n", line); /* where libgomp prints it */
}
