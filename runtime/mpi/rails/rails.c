/* The rails of this process: opens those MPCRT_RAILS names, exchanges their business cards through the
 * wire-up (one PMIx key per rail), and gives each peer process the first rail that reaches it. */
#include "rail.h"
#include "../../threads/config.h"
#include "../wireup/wireup.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct mpcrt_rail_ops *const known[] = {&mpcrt_rail_shm, &mpcrt_rail_tcp};
enum { NKNOWN = sizeof known / sizeof known[0], CARD_BYTES = 512 };

static const struct mpcrt_rail_ops *opened[NKNOWN];
static int nopened;
static const struct mpcrt_rail_ops **route; /* by process; NULL for this process */
static size_t max_packet;
static bool ready;
/* Peers that died (rails report them); mpcrt_rails_lost_flag is what paths every message takes look at. */
static _Atomic bool *lost;
_Atomic bool mpcrt_rails_lost_flag;
_Atomic unsigned mpcrt_rails_lost_count;
static mpcrt_rail_lost_fn lost_handler;
/* Rails that watch their peers (shm) do it every WATCH_NS at most, looked at every WATCH_POLLS polls. */
enum { WATCH_POLLS = 1024 };
#define WATCH_NS 100000000LL
/* initial-exec: the general-dynamic default cost a __tls_get_addr call on every poll of every waiter. */
static __thread unsigned polls_since_watch __attribute__((tls_model("initial-exec")));
static _Atomic long long last_watch_ns;

static const struct mpcrt_rail_ops *find(const char *name, size_t len)
{
    for (int i = 0; i < NKNOWN; i++)
        if (strlen(known[i]->name) == len && strncmp(known[i]->name, name, len) == 0)
            return known[i];
    return NULL;
}

int mpcrt_rails_init(void)
{
    int nprocs = mpcrt_wireup_num_procs(), me = mpcrt_wireup_proc();
    const char *list = mpcrt_config_str(MPCRT_CFG_RAILS);
    if (strcmp(list, "auto") == 0) /* every process reads the same job size, so all choose alike */
        list = mpcrt_wireup_num_nodes() > 1 ? "shm,tcp" : "shm";
    route = calloc((size_t)nprocs, sizeof *route);
    lost = calloc((size_t)nprocs, sizeof *lost);
    if (!route || !lost)
        return -ENOMEM;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const struct mpcrt_rail_ops *rail = find(p, len);
        if (!rail) {
            fprintf(stderr, "mpcrt: MPCRT_RAILS names an unknown rail '%.*s' (known: shm, tcp)\n", (int)len,
                    p);
            return -EINVAL;
        }
        char card[CARD_BYTES], key[64];
        int rc = rail->open(me, nprocs, card, sizeof card);
        if (rc) {
            fprintf(stderr, "mpcrt: process %d cannot open the %s rail (%s)\n", me, rail->name,
                    strerror(-rc));
            return rc;
        }
        snprintf(key, sizeof key, "mpcrt.rail.%s", rail->name);
        if (mpcrt_wireup_put(key, card) != 0)
            return -EIO;
        opened[nopened++] = rail;
        p += len + (p[len] == ',');
    }
    if (mpcrt_wireup_fence() != 0)
        return -EIO;
    for (int peer = 0; peer < nprocs; peer++) {
        for (int i = 0; peer != me && !route[peer] && i < nopened; i++) {
            char key[64];
            snprintf(key, sizeof key, "mpcrt.rail.%s", opened[i]->name);
            char *card = mpcrt_wireup_get(peer, key);
            if (card && opened[i]->connect(peer, card) == 0)
                route[peer] = opened[i];
            free(card);
        }
        if (peer != me && !route[peer]) {
            fprintf(stderr, "mpcrt: process %d cannot reach process %d through any rail of MPCRT_RAILS=%s\n",
                    me, peer, list);
            return -EHOSTUNREACH;
        }
    }
    /* Every process connected to every other before this fence ends: names and ports may go. */
    if (mpcrt_wireup_fence() != 0)
        return -EIO;
    max_packet = SIZE_MAX;
    for (int i = 0; i < nopened; i++) {
        if (opened[i]->connected)
            opened[i]->connected();
        if (opened[i]->max_packet() < max_packet)
            max_packet = opened[i]->max_packet();
    }
    ready = true;
    return 0;
}

bool mpcrt_rails_ready(void)
{
    return ready;
}

size_t mpcrt_rails_max_packet(void)
{
    return max_packet;
}

int mpcrt_rails_send(int proc, const void *header, size_t header_bytes, const void *payload,
                     size_t payload_bytes)
{
    return route[proc]->send(proc, header, header_bytes, payload, payload_bytes);
}

bool mpcrt_rails_unflushed(void)
{
    for (int i = 0; i < nopened; i++)
        if (opened[i]->unflushed && opened[i]->unflushed())
            return true;
    return false;
}

int mpcrt_rails_flush(int proc)
{
    /* No route to ourselves (and to nobody before the rails are up). */
    return route && route[proc] && route[proc]->flush ? route[proc]->flush(proc) : 0;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A peer that dies leaves no packet behind: rails without connections look for it now and then. */
static void watch_peers(mpcrt_rail_deliver_fn deliver)
{
    long long now = now_ns(), last = atomic_load_explicit(&last_watch_ns, memory_order_relaxed);
    if (now - last < WATCH_NS || !atomic_compare_exchange_strong_explicit(
                                     &last_watch_ns, &last, now, memory_order_relaxed, memory_order_relaxed))
        return;
    for (int i = 0; i < nopened; i++)
        if (opened[i]->watch)
            opened[i]->watch(deliver);
}

int mpcrt_rails_poll(mpcrt_rail_deliver_fn deliver)
{
    /* One rail (the usual single-node job): no loop around the indirect call. */
    int handled = nopened == 1 ? opened[0]->poll(deliver) : 0;
    for (int i = 0; nopened > 1 && i < nopened; i++)
        handled += opened[i]->poll(deliver);
    /* Per thread (no shared line on the hot path): the clock is read once per WATCH_POLLS polls. */
    if (++polls_since_watch % WATCH_POLLS == 0)
        watch_peers(deliver);
    return handled;
}

void mpcrt_rails_report_lost(int proc)
{
    if (!lost || proc < 0 || proc >= mpcrt_wireup_num_procs() || proc == mpcrt_wireup_proc() ||
        atomic_exchange(&lost[proc], true))
        return;
    atomic_store(&mpcrt_rails_lost_flag, true);
    atomic_fetch_add(&mpcrt_rails_lost_count, 1);
    if (lost_handler)
        lost_handler(proc);
}

void mpcrt_rails_on_lost(mpcrt_rail_lost_fn handler)
{
    lost_handler = handler;
}

bool mpcrt_rails_lost(int proc)
{
    return lost && atomic_load(&lost[proc]);
}

int mpcrt_rails_get(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes)
{
    const struct mpcrt_rail_ops *rail = route[proc];
    return rail->get ? rail->get(proc, local, niov, remote_addr, bytes) : -ENOSYS;
}

_Atomic uint64_t *mpcrt_rails_word(int proc, bool mine, uint32_t index)
{
    const struct mpcrt_rail_ops *rail = route[proc];
    return rail->word ? rail->word(mine ? -1 : proc, index) : NULL;
}

void mpcrt_rails_close(void)
{
    for (int i = 0; i < nopened; i++)
        opened[i]->close();
    nopened = 0;
    ready = false;
}
