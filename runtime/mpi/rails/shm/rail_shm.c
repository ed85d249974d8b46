/* The shm rail: processes of one node. Each process owns one receive queue in a shared-memory segment, a
 * bounded multi-producer queue of fixed-size cells (Vyukov's sequence-numbered ring: producers claim a cell
 * with one CAS, the single consumer needs no atomic read-modify-write). Segments are created 0600, mapped by
 * every local peer during start-up and unlinked as soon as all have them, so nothing outlives the job even
 * when it is killed. Rendezvous data moves in fragments through the cells, or by process_vm_readv (CMA,
 * one copy by the receiver) when the sender does not push them or the message is huge. A peer that dies is
 * seen through a pidfd of its process (watch), since nothing in shared memory tells. */
#define _GNU_SOURCE
#include "../rail.h"
#include "../../../threads/config.h"
#include "../../wireup/wireup.h"
#include "../../../threads/sched.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define CACHE_LINE 64
#define SEG_MAGIC 0x6d7063727473686dULL /* "mpcrtshm" */

/* 12 bytes before the packet: with pt2pt's 20-byte eager header, 32 bytes of message share the first cache
 * line of the cell with its sequence number, so a small message costs the receiver one line transfer. */
typedef struct {
    _Atomic uint64_t seq; /* == position: free for the producer of that position; position + 1: full */
    uint32_t bytes;
    char data[];
} cell_t;
#define CELL_HEADER offsetof(cell_t, data)

typedef struct {
    uint64_t magic;
    uint32_t ncells, cell_size;
    _Alignas(CACHE_LINE) _Atomic uint64_t tail; /* next position producers claim */
    _Alignas(CACHE_LINE) _Atomic uint64_t head; /* next position the consumer reads (consumer only) */
    /* The owner's doorbell (mpcrt_sched_set_doorbell): its idle VPs count themselves in `sleepers` and
     * sleep on `bell`; a producer that finds sleepers after publishing a cell rings it. */
    _Alignas(CACHE_LINE) _Atomic uint32_t bell;
    _Atomic uint32_t sleepers;
    /* Words the owner lends to one rendezvous each (mpcrt_rail_ops.word), one cache line apiece: the
     * sender and the receiver of a message claim its bytes from either end of one. */
    _Alignas(CACHE_LINE) struct {
        _Alignas(CACHE_LINE) _Atomic uint64_t value;
    } words[MPCRT_RAIL_WORDS];
    _Alignas(CACHE_LINE) char cells[];
} segment_t;

typedef struct {
    segment_t *seg; /* NULL: not reachable through this rail */
    size_t map_bytes;
    pid_t pid;
    int pidfd; /* readable once the peer's process has ended; -1: not watched (or already reported) */
    _Atomic bool populated; /* our mapping of its segment is populated (populate_for_sending) */
} peer_t;

static segment_t *mine;
static size_t mine_bytes;
static char mine_name[256];
static peer_t *peers;
static int num_peers;
static char my_host[256];
static _Atomic int poll_lock;
static bool cma_enabled;

static cell_t *cell_at(segment_t *seg, uint64_t pos)
{
    /* ncells is a power of two: a mask, not a 64-bit division (tens of cycles) on every cell access. */
    return (cell_t *)(seg->cells + (size_t)(pos & (seg->ncells - 1)) * seg->cell_size);
}

/* Two processes share memory when they run on the same host under the same kernel boot. */
static void host_identity(char *out, size_t size)
{
    char host[128] = "", boot[64] = "";
    gethostname(host, sizeof host - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = '\0';
    snprintf(out, size, "%s/%s", host, boot);
}

/* POSIX shm names allow no '/': keep the namespace readable, replace anything unusual. */
static void segment_name(char *out, size_t size, const char *nspace, int proc)
{
    int n = snprintf(out, size, "/mpcrt.");
    for (const char *c = nspace; *c && (size_t)n < size - 24; c++)
        out[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                           *c == '.' || *c == '-' || *c == '_'
                       ? *c
                       : '_';
    snprintf(out + n, size - (size_t)n, ".%d", proc);
}

static int shm_open_rail(int my_proc, int num_procs, char *card, size_t card_size)
{
    long ncells = mpcrt_config_int(MPCRT_CFG_SHM_CELLS);
    long cell_size = mpcrt_config_int(MPCRT_CFG_SHM_CELL_SIZE);
    if (ncells < 4)
        ncells = 4;
    while (ncells & (ncells - 1)) /* up to a power of two (cell_at) */
        ncells += ncells & -ncells;
    if (cell_size < 256)
        cell_size = 256;
    cell_size = (cell_size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    cma_enabled = mpcrt_config_int(MPCRT_CFG_SHM_CMA) != 0;
    host_identity(my_host, sizeof my_host);
    segment_name(mine_name, sizeof mine_name, mpcrt_wireup_nspace(), my_proc);
    mine_bytes = sizeof(segment_t) + (size_t)ncells * (size_t)cell_size;
    /* 0600 and O_EXCL: only this user's processes can map it, and a stale object is never reused. */
    int fd = shm_open(mine_name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)mine_bytes) != 0) {
        int err = errno;
        close(fd);
        shm_unlink(mine_name);
        return -err;
    }
    /* Populated: the pages a cell's data reaches only with larger packets were first touched by a message,
     * a fault each (in a VM a few microseconds): the first 250 MPI_Allreduce of 4 KiB between two processes
     * took 10 us each instead of 0.7. */
    mine = mmap(NULL, mine_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (mine == MAP_FAILED) {
        mine = NULL;
        shm_unlink(mine_name);
        return -ENOMEM;
    }
    mine->ncells = (uint32_t)ncells;
    mine->cell_size = (uint32_t)cell_size;
    for (uint64_t i = 0; i < (uint64_t)ncells; i++)
        atomic_store_explicit(&cell_at(mine, i)->seq, i, memory_order_relaxed);
    /* release: a peer that sees the magic (after the fence) sees the initialized cells. */
    atomic_thread_fence(memory_order_release);
    mine->magic = SEG_MAGIC;
    mpcrt_sched_set_doorbell(&mine->bell, &mine->sleepers);
    peers = calloc((size_t)num_procs, sizeof *peers);
    if (!peers)
        return -ENOMEM;
    num_peers = num_procs;
    for (int p = 0; p < num_procs; p++)
        peers[p].pidfd = -1;
    snprintf(card, card_size, "%s;%s;%d", my_host, mine_name, (int)getpid());
    return 0;
}

static int shm_connect(int proc, const char *card)
{
    char host[256], name[256];
    int pid;
    const char *a = strchr(card, ';'), *b = a ? strchr(a + 1, ';') : NULL;
    if (!a || !b || (size_t)(a - card) >= sizeof host || (size_t)(b - a - 1) >= sizeof name)
        return -EINVAL;
    memcpy(host, card, (size_t)(a - card));
    host[a - card] = '\0';
    memcpy(name, a + 1, (size_t)(b - a - 1));
    name[b - a - 1] = '\0';
    pid = atoi(b + 1);
    if (strcmp(host, my_host) != 0)
        return -EHOSTUNREACH;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (size_t)st.st_size < sizeof(segment_t)) {
        close(fd);
        return -EACCES; /* not made by this user's job: never trust its contents */
    }
    segment_t *seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED)
        return -ENOMEM;
    if (seg->magic != SEG_MAGIC || seg->ncells == 0 || (seg->ncells & (seg->ncells - 1)) ||
        sizeof(segment_t) + (size_t)seg->ncells * seg->cell_size > (size_t)st.st_size) {
        munmap(seg, (size_t)st.st_size);
        return -EINVAL;
    }
    /* The peer is alive (it published its card and waits in the fence), so this pid is its process. No
     * pidfd (old kernel, another pid namespace): its death is then the launcher's to see. */
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    peers[proc] =
        (peer_t){.seg = seg, .map_bytes = (size_t)st.st_size, .pid = pid, .pidfd = pidfd < 0 ? -1 : pidfd};
    return 0;
}

static void shm_connected(void)
{
    /* Every peer mapped it (they all passed the fence after connecting): the name has served. */
    if (mine_name[0])
        shm_unlink(mine_name);
    mine_name[0] = '\0';
}

/* Our mapping of a peer's segment gets its page tables when we first send to it, not at start-up (every
 * process maps every peer's segment: populating them all made a 32-process job start 0.1 s slower) nor
 * one fault per page as messages reach them. Racing first senders populate twice, harmlessly; a kernel
 * without MADV_POPULATE_WRITE (before 5.14) takes the faults. */
static void populate_for_sending(peer_t *peer)
{
#ifdef MADV_POPULATE_WRITE
    if (atomic_load_explicit(&peer->populated, memory_order_relaxed))
        return;
    atomic_store_explicit(&peer->populated, true, memory_order_relaxed);
    (void)madvise(peer->seg, peer->map_bytes, MADV_POPULATE_WRITE);
#else
    (void)peer;
#endif
}

static int shm_send(int proc, const void *header, size_t header_bytes, const void *payload,
                    size_t payload_bytes)
{
    segment_t *seg = peers[proc].seg;
    populate_for_sending(&peers[proc]);
    size_t room = seg->cell_size - CELL_HEADER;
    if (header_bytes + payload_bytes > room)
        return -EMSGSIZE;
    uint64_t pos = atomic_load_explicit(&seg->tail, memory_order_relaxed);
    cell_t *cell;
    for (;;) {
        cell = cell_at(seg, pos);
        /* acquire: the consumer's reads of this cell's previous contents are over before we write. */
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        int64_t diff = (int64_t)(seq - pos);
        if (diff == 0) {
            /* relaxed: the cell itself is handed over by its seq, not by tail. */
            if (atomic_compare_exchange_weak_explicit(&seg->tail, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return -EAGAIN; /* full: the cell still holds a packet from one lap ago */
        } else {
            pos = atomic_load_explicit(&seg->tail, memory_order_relaxed);
        }
    }
    memcpy(cell->data, header, header_bytes);
    if (payload_bytes)
        memcpy(cell->data + header_bytes, payload, payload_bytes);
    cell->bytes = (uint32_t)(header_bytes + payload_bytes);
    /* release: the consumer that sees seq == pos + 1 sees the packet. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    /* The owner's VPs may be asleep in the kernel: ring. No fence between the store above and this load
     * (the latency path): in the rare case that the owner counted itself and looked at the queue while
     * our store was still in this core's store buffer, it sleeps until its back-off timeout, as it would
     * without a doorbell. */
    if (atomic_load_explicit(&seg->sleepers, memory_order_relaxed))
        mpcrt_doorbell_ring(&seg->bell);
    return 0;
}

static int drain_locked(mpcrt_rail_deliver_fn deliver, uint64_t most);

static int shm_poll(mpcrt_rail_deliver_fn deliver)
{
    if (!mine)
        return 0;
    /* Cheap look before the lock: most polls find nothing. */
    uint64_t pos = atomic_load_explicit(&mine->head, memory_order_relaxed);
    if (atomic_load_explicit(&cell_at(mine, pos)->seq, memory_order_relaxed) != pos + 1)
        return 0;
    /* One poller at a time (try-lock): packets are handled in arrival order, which keeps MPI's
     * non-overtaking order; other threads go on with other work. */
    if (atomic_exchange_explicit(&poll_lock, 1, memory_order_acquire))
        return 0;
    /* At most one lap: a poll that went on while producers kept the queue filled took in a whole stream as
     * unexpected messages before the receiver matched any (a sender of 8-byte messages that keeps ahead:
     * 0.8 us per message, in allocations of the unbounded backlog, instead of 0.04 in step). */
    int handled = drain_locked(deliver, mine->ncells);
    atomic_store_explicit(&poll_lock, 0, memory_order_release);
    return handled;
}

/* Hands the packets in our queue to deliver, at most `most` of them (poll lock held). */
static int drain_locked(mpcrt_rail_deliver_fn deliver, uint64_t most)
{
    int handled = 0;
    for (uint64_t n = 0; n < most; n++) {
        uint64_t pos = atomic_load_explicit(&mine->head, memory_order_relaxed);
        cell_t *cell = cell_at(mine, pos);
        /* acquire: pairs with the producer's release of the filled cell. */
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1)
            break;
        /* In a stream the next cells are already written: start moving their first lines to this core
         * while this packet is handled (each is a miss otherwise, the largest cost of a small message). */
        __builtin_prefetch(cell_at(mine, pos + 1));
        __builtin_prefetch(cell_at(mine, pos + 2));
        deliver(cell->data, cell->bytes);
        atomic_store_explicit(&mine->head, pos + 1, memory_order_relaxed);
        /* release: our reads of the cell are done before a producer of the next lap writes it. */
        atomic_store_explicit(&cell->seq, pos + mine->ncells, memory_order_release);
        handled++;
    }
    return handled;
}

static void shm_watch(mpcrt_rail_deliver_fn deliver)
{
    if (!peers || atomic_exchange_explicit(&poll_lock, 1, memory_order_acquire))
        return; /* someone polls: the next watch will look */
    struct pollfd fds[64];
    int procs[64];
    for (int first = 0; first < num_peers;) {
        int n = 0, p = first;
        for (; p < num_peers && n < 64; p++)
            if (peers[p].pidfd >= 0) {
                fds[n] = (struct pollfd){peers[p].pidfd, POLLIN, 0};
                procs[n++] = p;
            }
        first = p;
        if (n == 0 || poll(fds, (nfds_t)n, 0) <= 0)
            continue;
        for (int i = 0; i < n; i++)
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                drain_locked(deliver, mine->ncells);
                /* Packets it wrote before dying are still in our queue (one lap at most): hand them over
                 * first, so that what it completed (a FIN, an eager message) is not failed. The handler
                 * runs under the poll lock, like a delivery. */
                close(peers[procs[i]].pidfd);
                peers[procs[i]].pidfd = -1;
                mpcrt_rails_report_lost(procs[i]);
            }
    }
    atomic_store_explicit(&poll_lock, 0, memory_order_release);
}

static int shm_get(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes)
{
    /* When to read (pt2pt/remote.c decides: at once from MPCRT_SHM_CMA_MIN up, else only from a sender
     * that does not push its fragments) is not the rail's business; a 0-byte get asks whether it can. */
    if (!cma_enabled)
        return -ENOSYS;
    size_t done = 0;
    int first = 0;
    struct iovec iov[64];
    /* process_vm_readv may stop short (at most IOV_MAX vectors, or a partial read): go on where it did. */
    while (done < bytes) {
        size_t skip = done, n = 0;
        int i = 0;
        for (first = 0; first < niov && skip >= local[first].iov_len; first++)
            skip -= local[first].iov_len;
        for (i = first; i < niov && n < 64; i++, n++) {
            iov[n].iov_base = (char *)local[i].iov_base + (i == first ? skip : 0);
            iov[n].iov_len = local[i].iov_len - (i == first ? skip : 0);
        }
        struct iovec remote = {(void *)(uintptr_t)(remote_addr + done), bytes - done};
        ssize_t got = process_vm_readv(peers[proc].pid, iov, (unsigned long)n, &remote, 1, 0);
        if (got <= 0)
            return got < 0 ? -errno : -EIO;
        done += (size_t)got;
    }
    return 0;
}

static _Atomic uint64_t *shm_word(int proc, uint32_t index)
{
    segment_t *seg = proc < 0 ? mine : peers[proc].seg;
    return seg && index < MPCRT_RAIL_WORDS ? &seg->words[index].value : NULL;
}

static size_t shm_max_packet(void)
{
    return mine ? mine->cell_size - CELL_HEADER : 0;
}

static void shm_close(void)
{
    shm_connected();
    for (int p = 0; peers && p < num_peers; p++) {
        if (peers[p].seg)
            munmap(peers[p].seg, peers[p].map_bytes);
        if (peers[p].pidfd >= 0)
            close(peers[p].pidfd);
    }
    free(peers);
    peers = NULL;
    /* Our segment stays mapped: an idle VP may still be asleep on its doorbell (it wakes by timeout) and
     * count itself out of `sleepers` afterwards. The name is gone, so the memory goes with the process. */
    mpcrt_sched_set_doorbell(NULL, NULL);
    mine = NULL;
}

const struct mpcrt_rail_ops mpcrt_rail_shm = {
    .name = "shm",
    .open = shm_open_rail,
    .connect = shm_connect,
    .connected = shm_connected,
    .send = shm_send,
    .poll = shm_poll,
    .get = shm_get,
    .word = shm_word,
    .close = shm_close,
    .max_packet = shm_max_packet,
    .watch = shm_watch,
};
