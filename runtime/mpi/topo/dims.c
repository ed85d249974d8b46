/* MPI_Dims_create (MPI 4.0 section 8.5.2): the free dimensions get a factorization of the remaining node
 * count that is "as close to each other as possible", in non-increasing order. The rule mpcrt follows is the
 * one MPICH's test suite encodes (topo/dims5 checks thousands of cases): the smallest spread (largest minus
 * smallest dimension); among equal spreads the largest smallest dimension, then the largest second smallest,
 * and so on. So 5040 in 3 dimensions is 21 x 16 x 15 (not 20 x 18 x 14), 453468 is 93 x 92 x 53 (not
 * 106 x 69 x 62: spread 44 against 40), 72 in 2 dimensions is 9 x 8. */
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

/* d^k > m, without overflow. */
static bool power_exceeds(long d, int k, long m)
{
    long p = 1;
    for (int i = 0; i < k; i++) {
        if (d > 1 && p > m / d)
            return true;
        p *= d;
    }
    return p > m;
}

/* The smallest r with r^k >= m (m >= 1, k >= 1). */
static long ceil_root(long m, int k)
{
    long lo = 1, hi = m;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (power_exceeds(mid, k, m - 1)) /* mid^k >= m */
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

typedef struct {
    const int *divs; /* the divisors of the count to split, increasing: every m below divides it */
    int ndivs;
} divisors_t;

/* Index of the first divisor >= v. */
static int first_at_least(const divisors_t *dv, long v)
{
    int lo = 0, hi = dv->ndivs;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (dv->divs[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Can m be written as k factors, each in [lo, hi]? Factors are tried in non-decreasing order: the first,
 * d, leaves m / d for k - 1 factors in [d, hi], so d^k <= m and m / d <= hi^(k - 1). */
static bool feasible(const divisors_t *dv, long m, int k, long lo, long hi)
{
    if (k == 0)
        return m == 1;
    if (k == 1)
        return m >= lo && m <= hi;
    for (int i = first_at_least(dv, lo); i < dv->ndivs && dv->divs[i] <= hi; i++) {
        long d = dv->divs[i];
        if (power_exceeds(d, k, m))
            break; /* a larger first factor leaves too little for the others */
        /* hi^(k-1) < m / d: this d is too small for the others to fit under hi. */
        if (m % d || !power_exceeds(hi, k - 1, m / d - 1))
            continue;
        if (feasible(dv, m / d, k - 1, d, hi))
            return true;
    }
    return false;
}

/* Smallest hi >= lo such that m splits into k factors in [lo, hi]; -1 if none. Feasibility grows with hi,
 * so a binary search over the divisors. */
static long smallest_max(const divisors_t *dv, long m, int k, long lo)
{
    int first = first_at_least(dv, lo), last = dv->ndivs - 1;
    if (first > last || !feasible(dv, m, k, lo, dv->divs[last]))
        return -1;
    while (first < last) {
        int mid = (first + last) / 2;
        if (feasible(dv, m, k, lo, dv->divs[mid]))
            last = mid;
        else
            first = mid + 1;
    }
    return dv->divs[first];
}

/* Splits n into k factors (k >= 1), written to out in non-increasing order. */
static void balance(const divisors_t *dv, long n, int k, int *out)
{
    if (k == 1) {
        out[0] = (int)n;
        return;
    }
    /* The smallest factor a, from the largest possible down: for each, the smallest possible largest
     * factor b gives the spread b - a. As a decreases, (n / a)^(1 / (k - 1)) - a bounds the spread from
     * below and only grows: stop once it cannot beat the best (a tie would not win: larger a first). */
    long best_a = 1, best_b = n, best_spread = n; /* n x 1 x ... x 1 always works */
    for (int i = dv->ndivs - 1; i >= 0; i--) {
        long a = dv->divs[i];
        if (power_exceeds(a, k, n))
            continue;
        long b = smallest_max(dv, n / a, k - 1, a);
        if (b >= 0 && b - a < best_spread) {
            best_spread = b - a;
            best_a = a;
            best_b = b;
        }
        /* Lower bound of the spread for this a and every smaller one: the (k-1)-th root of n / a. */
        if (ceil_root(n / a, k - 1) - a >= best_spread)
            break;
    }
    /* Then each next factor as large as possible, within [previous, best_b]. */
    int ascending[k];
    ascending[0] = (int)best_a;
    long m = n / best_a, prev = best_a;
    for (int j = 1; j < k; j++) {
        int left = k - j;
        for (int i = first_at_least(dv, best_b + 1) - 1; i >= 0 && dv->divs[i] >= prev; i--) {
            long d = dv->divs[i];
            if (m % d || power_exceeds(d, left, m))
                continue;
            if (feasible(dv, m / d, left - 1, d, best_b)) {
                ascending[j] = (int)d;
                m /= d;
                prev = d;
                break;
            }
        }
    }
    for (int j = 0; j < k; j++)
        out[j] = ascending[k - 1 - j];
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
    divisors_t dv = {divs, ndivs};
    balance(&dv, rest, free_dims, chosen);
    for (int d = 0, next = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = chosen[next++];
    free(divs);
    free(chosen);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Dims_create)
