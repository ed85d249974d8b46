/* Device memory routines (OpenMP 5.1 section 3.8) for a system whose only device is the host, the
 * initial device (number 0 = omp_get_num_devices()): allocations are malloc, copies are memcpy. */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_host(int device)
{
    return device == 0;
}

OMP_EXPORT void *omp_target_alloc(size_t size, int device)
{
    return is_host(device) ? malloc(size ? size : 1) : NULL;
}

OMP_EXPORT void omp_target_free(void *ptr, int device)
{
    if (is_host(device))
        free(ptr);
}

OMP_EXPORT int omp_target_is_present(const void *ptr, int device)
{
    (void)ptr;
    return is_host(device);
}

OMP_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                                 size_t src_offset, int dst_device, int src_device)
{
    if (!is_host(dst_device) || !is_host(src_device))
        return EINVAL;
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

static void copy_rect(char *dst, const char *src, size_t elem, int dims, const size_t *volume,
                      const size_t *dst_off, const size_t *src_off, const size_t *dst_dims, const size_t *src_dims)
{
    /* Row pitch of each dimension in bytes. */
    size_t dst_pitch = elem, src_pitch = elem;
    for (int d = 1; d < dims; d++) {
        dst_pitch *= dst_dims[d];
        src_pitch *= src_dims[d];
    }
    if (dims == 1) {
        memmove(dst + dst_off[0] * elem, src + src_off[0] * elem, volume[0] * elem);
        return;
    }
    for (size_t i = 0; i < volume[0]; i++)
        copy_rect(dst + (dst_off[0] + i) * dst_pitch, src + (src_off[0] + i) * src_pitch, elem, dims - 1,
                  volume + 1, dst_off + 1, src_off + 1, dst_dims + 1, src_dims + 1);
}

OMP_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                                      const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
                                      const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
                                      int src_device)
{
    if (!dst && !src)
        return 1 << 30; /* the number of dimensions supported: any */
    if (!is_host(dst_device) || !is_host(src_device) || num_dims < 1)
        return EINVAL;
    copy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions,
              src_dimensions);
    return 0;
}

OMP_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr, size_t size,
                                        size_t device_offset, int device)
{
    (void)host_ptr;
    (void)device_ptr;
    (void)size;
    (void)device_offset;
    (void)device;
    return EINVAL; /* no device has memory of its own */
}

OMP_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device)
{
    (void)ptr;
    (void)device;
    return EINVAL;
}
