/* MPI_Dims_create (MPI 4.0 section 8.5.2): the free dimensions get a factorization of the remaining node
 * count that is "as close to each other as possible", in non-increasing order. mpcrt's reading of that
 * rule: among all factorizations, the sorted (non-increasing) vector that is smallest lexicographically:
 * the largest dimension as small as it can be, then the next one, and so on. It gives 9 x 8 for 72, 1000^3
 * for 10^9, and 229 x 45 x 44 for 453420 (a prime factor larger than the cube root). */
#include "../mpi_internal.h"

#include <stdbool.h>
#include <stdlib.h>

/* Divisors of n in increasing order (at most 1600 for n < 2^31). */
static int divisors_of(int n, int **out)
{
    int cap = 64, count = 0;
    int *small = malloc(sizeof(int) * (size_t)cap), *large = malloc(sizeof(int) * (size_t)cap);
    if (!small || !large) {
        free(small);
        free(large);
        return -1;
    }
    int nlarge = 0;
    for (long d = 1; d * d <= n; d++) {
        if (n % d)
            continue;
        if (count == cap || nlarge == cap) {
            cap *= 2;
            int *s = realloc(small, sizeof(int) * (size_t)cap), *l = s ? realloc(large, sizeof(int) * (size_t)cap) : NULL;
            if (!s || !l) {
                free(s ? s : small);
                free(l ? l : large);
                return -1;
            }
            small = s;
            large = l;
        }
        small[count++] = (int)d;
        if (d * d != n)
            large[nlarge++] = (int)(n / d);
    }
    int *all = malloc(sizeof(int) * (size_t)(count + nlarge));
    if (all) {
        for (int i = 0; i < count; i++)
            all[i] = small[i];
        for (int i = 0; i < nlarge; i++)
            all[count + i] = large[nlarge - 1 - i];
    }
    free(small);
    free(large);
    *out = all;
    return all ? count + nlarge : -1;
}

/* d^k >= m, without overflow. */
static bool power_reaches(long d, int k, long m)
{
    long p = 1;
    for (int i = 0; i < k; i++) {
        p *= d;
        if (p >= m)
            return true;
    }
    return p >= m;
}

/* Writes into out[0..k) the lexicographically smallest non-increasing factorization of m into k factors
 * each at most bound; false if there is none. `divs` holds the divisors of the original count (m divides
 * it). The first factor is tried from the smallest that can still reach m (d^k >= m) upwards: the first that
 * admits a completion is the smallest possible largest factor, and the completion is chosen the same way. */
static bool factor(long m, int k, long bound, const int *divs, int ndivs, int *out)
{
    if (k == 0)
        return m == 1;
    if (k == 1) {
        if (m > bound)
            return false;
        out[0] = (int)m;
        return true;
    }
    for (int i = 0; i < ndivs && divs[i] <= bound && divs[i] <= m; i++) {
        long d = divs[i];
        if (m % d || !power_reaches(d, k, m))
            continue;
        if (factor(m / d, k - 1, d, divs, ndivs, out + 1)) {
            out[0] = (int)d;
            return true;
        }
    }
    return false;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    if (ndims < 0)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS, "negative number of dimensions %d", ndims);
    if (nnodes <= 0)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "nnodes %d is not positive", nnodes);
    if (ndims > 0 && !dims)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "null dims array");
    long fixed = 1;
    int free_dims = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS, "dims[%d] = %d is negative", d, dims[d]);
        if (dims[d] == 0)
            free_dims++;
        else if ((fixed *= dims[d]) > nnodes)
            break;
    }
    if (fixed > nnodes || nnodes % fixed)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                               "%d nodes cannot be divided among the fixed dimensions", nnodes);
    long rest = nnodes / fixed;
    if (free_dims == 0) {
        if (rest != 1)
            return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                                   "the fixed dimensions make %ld nodes, not %d", fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *divs, ndivs = divisors_of((int)rest, &divs);
    int *chosen = malloc(sizeof(int) * (size_t)free_dims);
    if (ndivs < 0 || !chosen) {
        if (ndivs >= 0)
            free(divs);
        free(chosen);
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory");
    }
    /* Always succeeds: rest x 1 x ... x 1 is a factorization. */
    factor(rest, free_dims, rest, divs, ndivs, chosen);
    for (int d = 0, next = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = chosen[next++];
    free(divs);
    free(chosen);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Dims_create)
