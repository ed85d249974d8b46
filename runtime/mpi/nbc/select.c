/* The algorithm table of the schedule-based collectives: for each collective, the algorithms it has, the
 * rule that picks one from the message size and the communicator size, and the per-collective override
 * of MPCRT_COLL_ALGORITHM ("allreduce=recursive_doubling,bcast=knomial", read through the config table).
 *
 * Every member must pick the same algorithm, or their messages do not pair up: the rules only look at
 * values that MPI requires to be equal on every member (the communicator size, the type signature's
 * byte count, the operation, whether the call is a v/w form). */
#include "nbc_internal.h"
#include "../../threads/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[NBC_NCOLL][NBC_MAX_ALGS] = {
    [NBC_BCAST] = {"binomial", "knomial"},
    [NBC_ALLREDUCE] = {"reduce_bcast", "recursive_doubling"},
    [NBC_ALLGATHER] = {"direct", "ring"},
    [NBC_ALLTOALL] = {"direct", "bruck"},
};
static const char *const coll_names[NBC_NCOLL] = {"bcast", "allreduce", "allgather", "alltoall"};

/* Thresholds of the rules (bytes). Small messages cost a latency per message: fewer rounds or fewer
 * messages win. Large messages cost copies: algorithms that move each byte fewer times win. */
enum {
    KNOMIAL_MAX_BYTES = 16 << 10,  /* beyond, a k-nomial parent's k-1 sends per level serialize copies */
    KNOMIAL_MIN_RANKS = 5,         /* up to 4 members, radix 4 is one level: the same as binomial or worse */
    RECDOUB_MAX_BYTES = 64 << 10,  /* beyond, n log n reductions cost more than reduce + bcast's n - 1 */
    RING_MIN_BLOCK_BYTES = 32 << 10, /* below, n - 1 sequential rounds cost more latency than they save */
    BRUCK_MAX_BLOCK_BYTES = 256,   /* beyond, Bruck's log n rounds each move n/2 blocks: too many bytes */
    BRUCK_MIN_RANKS = 8,           /* below, log2 n rounds are about as many as n - 1 messages */
};

static int forced[NBC_NCOLL]; /* algorithm index + 1; 0: the rule decides */
static mpcrt_once_t parse_once = MPCRT_ONCE_INITIALIZER;

static int lookup(int coll, const char *name, size_t len)
{
    for (int a = 0; a < NBC_MAX_ALGS && names[coll][a]; a++)
        if (strlen(names[coll][a]) == len && !strncmp(names[coll][a], name, len)) return a;
    return -1;
}

static void parse(void)
{
    const char *text = mpcrt_config_str(MPCRT_CFG_COLL_ALGORITHM);
    while (text && *text) {
        const char *end = strchr(text, ',');
        size_t len = end ? (size_t)(end - text) : strlen(text);
        const char *eq = memchr(text, '=', len);
        bool ok = false;
        if (eq) {
            for (int c = 0; c < NBC_NCOLL && !ok; c++) {
                if (strlen(coll_names[c]) != (size_t)(eq - text) || strncmp(coll_names[c], text, (size_t)(eq - text)))
                    continue;
                int a = lookup(c, eq + 1, len - (size_t)(eq + 1 - text));
                if (a >= 0) {
                    forced[c] = a + 1;
                    ok = true;
                }
            }
        }
        if (!ok && len > 0) /* a typo must not pass silently for a forced algorithm */
            fprintf(stderr, "mpcrt: ignoring MPCRT_COLL_ALGORITHM entry '%.*s' (see runtime/mpi/nbc/README.md)\n",
                    (int)len, text);
        text = end ? end + 1 : NULL;
    }
}

int nbc_select(nbc_coll_t coll, const nbc_choice_t *c)
{
    mpcrt_once(&parse_once, parse);
    int alg = forced[coll] - 1;
    switch (coll) {
    case NBC_BCAST:
        if (alg < 0) alg = c->bytes <= KNOMIAL_MAX_BYTES && c->ranks >= KNOMIAL_MIN_RANKS;
        return alg;
    case NBC_ALLREDUCE:
        /* Recursive doubling keeps rank order (the lower half's value on the left), so it is right for
         * non-commutative operations too; the rule still leaves those to the reduce + bcast tree, whose
         * order has been proven by the test suite longer. */
        if (alg < 0) alg = c->commutative && c->bytes <= RECDOUB_MAX_BYTES;
        return alg;
    case NBC_ALLGATHER:
        if (alg < 0) alg = c->ranks > 2 && c->bytes / (c->ranks ? c->ranks : 1) >= RING_MIN_BLOCK_BYTES;
        return alg;
    case NBC_ALLTOALL:
        /* Bruck packs equal blocks: v and w forms always exchange directly. */
        if (!c->uniform || c->bytes == 0) return NBC_ALLTOALL_DIRECT;
        if (alg < 0) alg = c->bytes <= BRUCK_MAX_BLOCK_BYTES && c->ranks >= BRUCK_MIN_RANKS;
        return alg;
    default:
        return 0;
    }
}
