/* The external32 data representation (MPI 4.0 section 13.5.2): big-endian, IEEE formats, fixed sizes
 * (MPI_LONG is 4 bytes there, MPI_LONG_DOUBLE a binary128), and MPI_Pack_external, MPI_Unpack_external,
 * MPI_Pack_external_size. Conversion walks the per-element layout, so every block has one element type.
 * Values that do not fit the external size (a long beyond 32 bits) are truncated. */
#include "datatype_internal.h"

#include <string.h>

static void reverse(char *to, const char *from, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        to[i] = from[size - 1 - i];
}

/* Native scalar of `size` bytes <-> big-endian, through the widest fixed-size loads. */
static void swap_scalar(char *to, const char *from, unsigned size)
{
    switch (size) {
    case 2: {
        uint16_t v;
        memcpy(&v, from, 2);
        v = __builtin_bswap16(v);
        memcpy(to, &v, 2);
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, from, 4);
        v = __builtin_bswap32(v);
        memcpy(to, &v, 4);
        break;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, from, 8);
        v = __builtin_bswap64(v);
        memcpy(to, &v, 8);
        break;
    }
    default:
        reverse(to, from, size);
        break;
    }
}

static void store_be64(char *to, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(to, &v, 8);
}

static uint64_t load_be64(const char *from)
{
    uint64_t v;
    memcpy(&v, from, 8);
    return __builtin_bswap64(v);
}

/* x87 extended (64-bit significand with an explicit integer bit, 15-bit exponent, little-endian in 16
 * bytes) to IEEE binary128 (15-bit exponent with the same bias, 112-bit fraction, implicit integer bit).
 * Normal and subnormal numbers, infinities and NaNs map exactly: the fraction is shifted to the top. */
static void x87_to_quad(char *ext, const char *native)
{
    uint64_t mantissa;
    uint16_t sign_exp;
    memcpy(&mantissa, native, 8);
    memcpy(&sign_exp, native + 8, 2);
    uint64_t fraction = mantissa & 0x7fffffffffffffffull; /* 63 bits below the integer bit */
    uint64_t hi = ((uint64_t)sign_exp << 48) | (fraction >> 15);
    uint64_t lo = fraction << 49;
    store_be64(ext, hi);
    store_be64(ext + 8, lo);
}

/* The inverse; the 49 fraction bits x87 cannot hold are dropped (round toward zero). */
static void quad_to_x87(char *native, const char *ext)
{
    uint64_t hi = load_be64(ext), lo = load_be64(ext + 8);
    uint16_t sign_exp = (uint16_t)(hi >> 48);
    uint64_t fraction = ((hi & 0xffffffffffffull) << 15) | (lo >> 49);
    uint64_t integer_bit = (sign_exp & 0x7fff) ? 1ull << 63 : 0; /* implicit in binary128 unless subnormal */
    uint64_t mantissa = integer_bit | fraction;
    memset(native, 0, 16);
    memcpy(native, &mantissa, 8);
    memcpy(native + 8, &sign_exp, 2);
}

void mpcrt_dt_ext32_encode(unsigned elem, const char *native, char *ext, MPI_Count n)
{
    const dt_basic_info_t *b = &mpcrt_dt_basic_info[elem];
    unsigned size = b->size, esize = b->ext32_size;
    switch ((dt_conv_t)b->conv) {
    case DT_CONV_NONE:
        break;
    case DT_CONV_COPY:
        memcpy(ext, native, (size_t)n * size);
        break;
    case DT_CONV_SWAP:
        for (MPI_Count i = 0; i < n; i++)
            swap_scalar(ext + i * esize, native + i * size, size);
        break;
    case DT_CONV_SWAP_PAIR:
        for (MPI_Count i = 0; i < 2 * n; i++)
            swap_scalar(ext + i * (esize / 2), native + i * (size / 2), size / 2);
        break;
    case DT_CONV_NARROW_SIGNED:
    case DT_CONV_NARROW_UNSIGNED:
        /* Little-endian: the low external-size bytes of the native value, then byte-swapped. */
        for (MPI_Count i = 0; i < n; i++)
            swap_scalar(ext + i * esize, native + i * size, esize);
        break;
    case DT_CONV_X87:
        for (MPI_Count i = 0; i < n; i++)
            x87_to_quad(ext + i * 16, native + i * 16);
        break;
    case DT_CONV_X87_PAIR:
        for (MPI_Count i = 0; i < 2 * n; i++)
            x87_to_quad(ext + i * 16, native + i * 16);
        break;
    }
}

void mpcrt_dt_ext32_decode(unsigned elem, const char *ext, char *native, MPI_Count n)
{
    const dt_basic_info_t *b = &mpcrt_dt_basic_info[elem];
    unsigned size = b->size, esize = b->ext32_size;
    switch ((dt_conv_t)b->conv) {
    case DT_CONV_NONE:
        break;
    case DT_CONV_COPY:
        memcpy(native, ext, (size_t)n * size);
        break;
    case DT_CONV_SWAP:
        for (MPI_Count i = 0; i < n; i++)
            swap_scalar(native + i * size, ext + i * esize, size);
        break;
    case DT_CONV_SWAP_PAIR:
        for (MPI_Count i = 0; i < 2 * n; i++)
            swap_scalar(native + i * (size / 2), ext + i * (esize / 2), size / 2);
        break;
    case DT_CONV_NARROW_SIGNED:
    case DT_CONV_NARROW_UNSIGNED:
        for (MPI_Count i = 0; i < n; i++) {
            char *to = native + i * size;
            swap_scalar(to, ext + i * esize, esize);
            /* Extend to the native size: copies of the sign bit, or zeros. */
            bool negative = b->conv == DT_CONV_NARROW_SIGNED && (to[esize - 1] & 0x80);
            memset(to + esize, negative ? 0xff : 0, size - esize);
        }
        break;
    case DT_CONV_X87:
        for (MPI_Count i = 0; i < n; i++)
            quad_to_x87(native + i * 16, ext + i * 16);
        break;
    case DT_CONV_X87_PAIR:
        for (MPI_Count i = 0; i < 2 * n; i++)
            quad_to_x87(native + i * 16, ext + i * 16);
        break;
    }
}

static MPI_Count encode_blocks(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                               unsigned elem)
{
    const dt_basic_info_t *b = &mpcrt_dt_basic_info[elem];
    MPI_Count per_block = b->size ? len / b->size : 0;
    for (MPI_Count k = 0; k < n; k++) {
        mpcrt_dt_ext32_encode(elem, mpcrt_dt_at(first, k * stride), w->cursor, per_block);
        w->cursor += per_block * b->ext32_size;
    }
    return n;
}

static MPI_Count decode_blocks(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                               unsigned elem)
{
    const dt_basic_info_t *b = &mpcrt_dt_basic_info[elem];
    MPI_Count per_block = b->size ? len / b->size : 0;
    for (MPI_Count k = 0; k < n; k++) {
        mpcrt_dt_ext32_decode(elem, w->cursor, mpcrt_dt_at(first, k * stride), per_block);
        w->cursor += per_block * b->ext32_size;
    }
    return n;
}

static int check_datarep(const char *fn, const char *datarep)
{
    if (!datarep)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_UNSUPPORTED_DATAREP,
                               "data representation \"%s\": only \"external32\" is defined here", datarep);
    return MPI_SUCCESS;
}

static int external_common(const char *fn, const char *datarep, MPI_Count count, MPI_Datatype datatype,
                           const MPI_Count *position, bool need_commit, mpcrt_datatype_t **dt)
{
    int rc = check_datarep(fn, datarep);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "count is negative (%ld)", (long)count);
    if ((rc = mpcrt_dt_arg(datatype, fn, "datatype", dt)) != MPI_SUCCESS)
        return rc;
    if (need_commit && !mpcrt_datatype_is_committed(*dt))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE, "the datatype is not committed (MPI_Type_commit)");
    if (!position)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "position is NULL");
    return MPI_SUCCESS;
}

static int pack_external(const char *fn, const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    mpcrt_datatype_t *dt;
    int rc = external_common(fn, datarep, incount, datatype, position, true, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes;
    if (__builtin_mul_overflow(incount, dt->ext32_size, &bytes))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "%ld items overflow", (long)incount);
    if (*position < 0 || *position > outsize || bytes > outsize - *position)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TRUNCATE,
                               "%ld bytes do not fit at position %ld of a %ld-byte buffer", (long)bytes,
                               (long)*position, (long)outsize);
    if (bytes > 0 && !outbuf)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_BUFFER, "outbuf is NULL");
    const mpcrt_dt_node_t *typed = mpcrt_dt_typed_root(dt);
    if (!typed)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    dt_walker_t w = {.blocks = encode_blocks, .cursor = (char *)outbuf + *position};
    mpcrt_dt_walk(typed, mpcrt_datatype_extent(dt), inbuf, incount, 0, incount * dt->size, &w);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack_external(const char *fn, const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    mpcrt_datatype_t *dt;
    int rc = external_common(fn, datarep, outcount, datatype, position, true, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes;
    if (__builtin_mul_overflow(outcount, dt->ext32_size, &bytes))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "%ld items overflow", (long)outcount);
    if (*position < 0 || *position > insize || bytes > insize - *position)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TRUNCATE,
                               "%ld bytes to unpack but only %ld remain after position %ld", (long)bytes,
                               (long)(insize - *position), (long)*position);
    if (bytes > 0 && !inbuf)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_BUFFER, "inbuf is NULL");
    const mpcrt_dt_node_t *typed = mpcrt_dt_typed_root(dt);
    if (!typed)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    dt_walker_t w = {.blocks = decode_blocks, .cursor = (char *)inbuf + *position};
    mpcrt_dt_walk(typed, mpcrt_datatype_extent(dt), outbuf, outcount, 0, outcount * dt->size, &w);
    *position += bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Aint outsize, MPI_Aint *position)
{
    if (!position)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Pack_external", MPI_ERR_ARG, "position is NULL");
    MPI_Count pos = *position;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}
MPCRT_PMPI_ALIAS(Pack_external)

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
MPCRT_PMPI_ALIAS(Pack_external_c)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                         void *outbuf, int outcount, MPI_Datatype datatype)
{
    if (!position)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Unpack_external", MPI_ERR_ARG, "position is NULL");
    MPI_Count pos = *position;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}
MPCRT_PMPI_ALIAS(Unpack_external)

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                           void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount,
                           datatype);
}
MPCRT_PMPI_ALIAS(Unpack_external_c)

static int pack_external_size(const char *fn, const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    mpcrt_datatype_t *dt;
    MPI_Count unused = 0;
    int rc = external_common(fn, datarep, incount, datatype, &unused, false, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "size is NULL");
    if (__builtin_mul_overflow(incount, dt->ext32_size, size))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "%ld items overflow", (long)incount);
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    MPI_Count bytes = 0;
    int rc = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size ? &bytes : NULL);
    if (rc == MPI_SUCCESS)
        *size = bytes;
    return rc;
}
MPCRT_PMPI_ALIAS(Pack_external_size)

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
    return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
MPCRT_PMPI_ALIAS(Pack_external_size_c)
