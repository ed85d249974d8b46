/* The tcp rail: processes anywhere. Connections are made on demand: the first packet for a peer connects
 * to it (not every pair at start-up: a job where few pairs talk opens few sockets), and until the peer
 * accepts, packets wait in the protocol layer's outbox. When two processes connect to each other at once,
 * the connection the lower process made is kept and the other is refused with a NACK byte (the acceptor
 * answers every hello with ACK or NACK, and the connector sends nothing before that answer), so both sides
 * agree without another round. Length-prefixed packets on non-blocking sockets; a connection that ends
 * reports its peer lost (mpcrt_rails_report_lost). Each process's card carries its address and a random
 * secret; a connection must open with the secret of the process it reaches (only the job's members can
 * read cards, through PMIx), so a connection without it is refused and logged. The listener binds only to
 * the address of the interface in use (MPCRT_TCP_IF, else the first non-loopback IPv4 interface). */
#define _GNU_SOURCE
#include "../rail.h"
#include "tcp_watch.h"
#include "../../../threads/config.h"
#include "../../../threads/sched.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SECRET_BYTES = 16, MAX_PACKET = 64 << 10, HELLO_TIMEOUT_MS = 5000 };
enum { ACK = 1, NACK = 0 };

typedef struct {
    uint8_t secret[SECRET_BYTES]; /* the secret of the process being reached */
    int32_t proc;                 /* who connects */
} hello_t;

/* A peer's connection. NONE -> OPENING (our non-blocking connect in progress) -> CONNECTING (our hello
 * sent, its answer awaited) -> UP; a NACK (its own
 * connection to us wins) -> AWAIT until we accept that one; an accepted hello -> UP from NONE or AWAIT
 * (or from CONNECTING when the peer is the lower process). FAILED: the connect was refused (the peer is
 * gone), reported lost by the next poll; DEAD: reported, sends fail. */
enum { NONE, OPENING, CONNECTING, AWAIT, UP, FAILED, DEAD };

typedef struct {
    _Atomic int state;
    _Atomic int lock; /* state changes: a sender (NONE -> CONNECTING) against the poller (the others) */
    int fd;           /* OPENING, CONNECTING and UP */
    struct sockaddr_in addr;
    /* Receiving: bytes of the packet being assembled (length prefix first). */
    char *in;
    size_t in_len, in_cap;
    /* Sending: the unsent tail of a packet the socket took only partly (sender's outbox lock held). */
    char *out;
    size_t out_len, out_off;
    uint8_t secret[SECRET_BYTES]; /* the peer's, from its card */
} peer_t;

/* An accepted connection whose hello has not all come yet (poller only). */
typedef struct {
    int fd;
    size_t got;
    hello_t hello;
    long long deadline_ns;
} incoming_t;

static int listen_fd = -1, my_proc, num_procs, netns_fd = -1;
static peer_t *peers;
static uint8_t my_secret[SECRET_BYTES];
static struct pollfd *pfds;
static int *pfd_owner; /* per pfds entry: peer (>= 0), -1 listener, -2 - i: incoming[i] */
static incoming_t *incoming;
static int nincoming, incoming_cap;
static _Atomic int poll_lock;
static _Atomic bool failed_any; /* some peer is FAILED: the poller reports it */

static void hex(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
}

static int unhex(const char *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(in + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* The address to listen on: the interface MPCRT_TCP_IF names, else the first non-loopback IPv4 one,
 * else loopback. */
static int pick_address(struct in_addr *addr)
{
    const char *want = mpcrt_config_str(MPCRT_CFG_TCP_IF);
    struct ifaddrs *list, *it;
    addr->s_addr = htonl(INADDR_LOOPBACK);
    if (getifaddrs(&list) != 0)
        return 0;
    bool found = false;
    for (it = list; it && !found; it = it->ifa_next) {
        if (!it->ifa_addr || it->ifa_addr->sa_family != AF_INET || !(it->ifa_flags & IFF_UP))
            continue;
        if (*want ? strcmp(it->ifa_name, want) == 0 : !(it->ifa_flags & IFF_LOOPBACK)) {
            *addr = ((struct sockaddr_in *)it->ifa_addr)->sin_addr;
            found = true;
        }
    }
    freeifaddrs(list);
    if (*want && !found) {
        fprintf(stderr, "mpcrt: MPCRT_TCP_IF=%s: no such IPv4 interface is up\n", want);
        return -ENODEV;
    }
    return 0;
}

static void join_netns(void)
{
    /* Tests put processes of one job in different network namespaces (veth pairs): the PMIx connection
     * stays where it was made, the rail's sockets are created in the namespace named here (this thread
     * joins it; sockets made later by other threads go through make_socket). */
    const char *path = mpcrt_config_str(MPCRT_CFG_NETNS);
    if (!*path)
        return;
    netns_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (netns_fd < 0 || setns(netns_fd, CLONE_NEWNET) != 0)
        fprintf(stderr, "mpcrt: MPCRT_NETNS=%s: cannot join it (%s)\n", path, strerror(errno));
}

/* A socket in the rail's network namespace, whichever thread asks (a namespace is per thread). */
static int make_socket(void)
{
    if (netns_fd < 0)
        return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0 || setns(netns_fd, CLONE_NEWNET) != 0) {
        if (self >= 0)
            close(self);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int err = errno;
    setns(self, CLONE_NEWNET);
    close(self);
    errno = err;
    return fd;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int tcp_open(int me, int nprocs, char *card, size_t card_size)
{
    my_proc = me;
    num_procs = nprocs;
    join_netns();
    peers = calloc((size_t)nprocs, sizeof *peers);
    pfds = calloc((size_t)nprocs + 1, sizeof *pfds);
    pfd_owner = calloc((size_t)nprocs + 1, sizeof *pfd_owner);
    if (!peers || !pfds || !pfd_owner)
        return -ENOMEM;
    for (int p = 0; p < nprocs; p++)
        peers[p].fd = -1;
    int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (rnd < 0 || read(rnd, my_secret, sizeof my_secret) != (ssize_t)sizeof my_secret) {
        if (rnd >= 0)
            close(rnd);
        return -EIO;
    }
    close(rnd);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    int rc = pick_address(&sa.sin_addr);
    if (rc)
        return rc;
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(listen_fd, SOMAXCONN) != 0) /* many processes may connect to one at once */
        return -errno;
    socklen_t len = sizeof sa;
    getsockname(listen_fd, (struct sockaddr *)&sa, &len);
    char secret_hex[2 * SECRET_BYTES + 1], ip[INET_ADDRSTRLEN];
    hex(my_secret, SECRET_BYTES, secret_hex);
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    snprintf(card, card_size, "%s:%d:%s", ip, ntohs(sa.sin_port), secret_hex);
    if (nprocs > 1) {
        if ((rc = mpcrt_tcp_watch_start()) != 0)
            return rc;
        mpcrt_tcp_watch_fd(listen_fd);
    }
    return 0;
}

static int set_options(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void refuse(int fd, const char *why)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    char ip[INET_ADDRSTRLEN] = "?";
    if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0)
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    fprintf(stderr, "mpcrt: process %d refused a TCP connection from %s:%d (%s)\n", my_proc, ip,
            ntohs(sa.sin_port), why);
    close(fd);
}

/* Parses the peer's card; the connection is made by the first packet for it (connect_peer). */
static int tcp_connect(int proc, const char *card)
{
    char ip[64];
    const char *colon = strchr(card, ':'), *colon2 = colon ? strchr(colon + 1, ':') : NULL;
    if (!colon || !colon2 || (size_t)(colon - card) >= sizeof ip)
        return -EINVAL;
    memcpy(ip, card, (size_t)(colon - card));
    ip[colon - card] = '\0';
    peer_t *p = &peers[proc];
    p->addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    if (inet_pton(AF_INET, ip, &p->addr.sin_addr) != 1 || unhex(colon2 + 1, p->secret, SECRET_BYTES) != 0)
        return -EINVAL;
    return 0;
}

static void connect_failed(peer_t *p, int fd)
{
    close(fd);
    p->fd = -1;
    atomic_store(&p->state, FAILED);
    atomic_store(&failed_any, true);
}

/* The connection is made: say hello (a few bytes into an empty socket buffer); the poller reads the
 * answer. Under p->lock. */
static void send_hello(int proc)
{
    peer_t *p = &peers[proc];
    hello_t hello = {.proc = my_proc};
    memcpy(hello.secret, p->secret, SECRET_BYTES);
    if (send(p->fd, &hello, sizeof hello, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof hello) {
        connect_failed(p, p->fd);
        return;
    }
    atomic_store_explicit(&p->state, CONNECTING, memory_order_release);
}

/* First packet for proc (its state NONE, its lock held): start a non-blocking connect; the poller sees it
 * complete (writable) and says hello. The sender's VP never waits in the kernel for a remote host. A
 * refused connect means the peer's listener is gone: it died. */
static void connect_peer(int proc)
{
    peer_t *p = &peers[proc];
    int fd = make_socket();
    if (fd < 0) {
        fprintf(stderr, "mpcrt: process %d cannot make a socket for process %d (%s)\n", my_proc, proc,
                strerror(errno));
        atomic_store(&p->state, FAILED);
        atomic_store(&failed_any, true);
        return;
    }
    set_options(fd);
    p->fd = fd;
    if (connect(fd, (struct sockaddr *)&p->addr, sizeof p->addr) != 0 && errno != EINPROGRESS) {
        connect_failed(p, fd);
        return;
    }
    mpcrt_tcp_watch_fd(fd); /* its completion, its answer, then its packets may come while every VP sleeps */
    atomic_store_explicit(&p->state, OPENING, memory_order_release);
}

/* The poller saw proc's connect end (writable, or an error). */
static void finish_connect(int proc)
{
    peer_t *p = &peers[proc];
    int err = 0;
    socklen_t len = sizeof err;
    mpcrt_spin_lock(&p->lock);
    if (atomic_load(&p->state) == OPENING) {
        if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
            connect_failed(p, p->fd);
        else
            send_hello(proc);
    }
    mpcrt_spin_unlock(&p->lock);
}

static _Atomic int npartial; /* peers with a half-written packet (p->out) */

static int flush_partial(peer_t *p)
{
    while (p->out_off < p->out_len) {
        ssize_t n = send(p->fd, p->out + p->out_off, p->out_len - p->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
        p->out_off += (size_t)n;
    }
    free(p->out);
    p->out = NULL;
    p->out_len = p->out_off = 0;
    atomic_fetch_sub_explicit(&npartial, 1, memory_order_relaxed);
    return 0;
}

static int tcp_flush(int proc)
{
    peer_t *p = &peers[proc];
    if (!p->out)
        return 0;
    if (atomic_load_explicit(&p->state, memory_order_acquire) == DEAD) {
        p->out_off = p->out_len; /* nobody will read it: drop it */
        return flush_partial(p);
    }
    return flush_partial(p) == 0 ? 0 : -EAGAIN; /* a broken connection shows in poll */
}

static bool tcp_unflushed(void)
{
    return atomic_load_explicit(&npartial, memory_order_relaxed) > 0;
}

static int tcp_send(int proc, const void *header, size_t header_bytes, const void *payload,
                    size_t payload_bytes)
{
    peer_t *p = &peers[proc];
    int state = atomic_load_explicit(&p->state, memory_order_acquire);
    if (state != UP) {
        if (state == DEAD)
            return -EPIPE; /* its connection ended: the protocol layer drops what is for it */
        if (state == NONE) {
            mpcrt_spin_lock(&p->lock);
            if (atomic_load(&p->state) == NONE)
                connect_peer(proc);
            mpcrt_spin_unlock(&p->lock);
        }
        return -EAGAIN; /* kept in the outbox until the connection is up */
    }
    if (p->out && flush_partial(p) != 0)
        return -EAGAIN;
    uint32_t len = (uint32_t)(header_bytes + payload_bytes);
    struct iovec iov[3] = {
        {&len, sizeof len}, {(void *)header, header_bytes}, {(void *)payload, payload_bytes}};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = payload_bytes ? 3 : 2};
    ssize_t n = sendmsg(p->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    size_t total = sizeof len + len;
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return -errno;
        return -EAGAIN; /* nothing went: the packet stays with the caller */
    }
    if ((size_t)n < total) {
        /* Part of it went: the rest must follow before anything else on this connection. */
        p->out = malloc(total - (size_t)n);
        if (!p->out)
            return -ENOMEM;
        size_t skip = (size_t)n, at = 0;
        for (int i = 0; i < (int)msg.msg_iovlen; i++) {
            size_t l = iov[i].iov_len;
            if (skip >= l) {
                skip -= l;
                continue;
            }
            memcpy(p->out + at, (char *)iov[i].iov_base + skip, l - skip);
            at += l - skip;
            skip = 0;
        }
        p->out_len = at;
        p->out_off = 0;
        atomic_fetch_add_explicit(&npartial, 1, memory_order_relaxed);
    }
    return 0;
}

/* Reads what a connection has and hands every complete packet to deliver; *ended when the peer closed it
 * or it broke (every complete packet before that was delivered). */
/* Packets one poll takes from a peer at most: a sender that keeps the socket filled would otherwise keep
 * the poll reading, and the receiver take the whole stream in as unexpected messages (see rail_shm.c). */
#define DRAIN_PACKETS 256

static int drain(peer_t *p, mpcrt_rail_deliver_fn deliver, bool *ended)
{
    int handled = 0;
    *ended = false;
    while (handled < DRAIN_PACKETS) {
        if (p->in_cap - p->in_len < 16384) {
            size_t cap = p->in_cap ? p->in_cap * 2 : 65536 + MAX_PACKET;
            char *grown = realloc(p->in, cap);
            if (!grown)
                return handled;
            p->in = grown;
            p->in_cap = cap;
        }
        ssize_t n = recv(p->fd, p->in + p->in_len, p->in_cap - p->in_len, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* 0: the peer's end closed (it exited: a live process closes only after MPI_Finalize, when
             * nothing is pending with it any more); ECONNRESET and the like: it died. */
            *ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
            break;
        }
        p->in_len += (size_t)n;
        size_t at = 0;
        while (p->in_len - at >= sizeof(uint32_t)) {
            uint32_t len;
            memcpy(&len, p->in + at, sizeof len);
            if (p->in_len - at < sizeof len + len)
                break;
            deliver(p->in + at + sizeof len, len);
            handled++;
            at += sizeof len + len;
        }
        memmove(p->in, p->in + at, p->in_len - at);
        p->in_len -= at;
    }
    return handled;
}

static void end_peer(int proc)
{
    peer_t *p = &peers[proc];
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    atomic_store(&p->state, DEAD); /* sends to it fail from now on, and it is polled no more */
    mpcrt_rails_report_lost(proc);
}

static void answer(int fd, uint8_t byte)
{
    /* The first byte on a fresh socket: its send buffer is empty. */
    if (send(fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1 && byte == ACK)
        fprintf(stderr, "mpcrt: process %d could not answer a TCP hello (%s)\n", my_proc, strerror(errno));
}

/* A complete hello on an accepted connection: check the secret, then keep it or refuse it. */
static void take_hello(incoming_t *in)
{
    int fd = in->fd, from = in->hello.proc;
    if (memcmp(in->hello.secret, my_secret, SECRET_BYTES) != 0) {
        refuse(fd, "it did not present this job's secret");
        return;
    }
    if (from < 0 || from >= num_procs || from == my_proc) {
        refuse(fd, "unexpected process number");
        return;
    }
    peer_t *p = &peers[from];
    mpcrt_spin_lock(&p->lock);
    int state = atomic_load(&p->state);
    /* Both connected at once: the lower process's connection is kept. */
    bool ours_pending = state == CONNECTING || state == OPENING;
    bool keep = state == NONE || state == AWAIT || (ours_pending && from < my_proc);
    if (!keep) {
        mpcrt_spin_unlock(&p->lock);
        answer(fd, NACK);
        close(fd);
        return;
    }
    if (ours_pending)
        close(p->fd); /* ours loses: the peer answers it NACK, or has closed it already */
    set_options(fd);
    answer(fd, ACK);
    p->fd = fd;
    atomic_store_explicit(&p->state, UP, memory_order_release);
    mpcrt_spin_unlock(&p->lock);
}

static void accept_new(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        if (nincoming == incoming_cap) {
            int cap = incoming_cap ? 2 * incoming_cap : 8;
            incoming_t *grown = realloc(incoming, (size_t)cap * sizeof *incoming);
            if (!grown) {
                close(fd);
                return;
            }
            incoming = grown;
            incoming_cap = cap;
        }
        incoming[nincoming++] = (incoming_t){fd, 0, {{0}, 0}, now_ns() + HELLO_TIMEOUT_MS * 1000000LL};
        mpcrt_tcp_watch_fd(fd); /* the same socket carries its packets once the hello is taken */
    }
}

/* Reads what came of an accepted connection's hello; true when it is done with (kept or refused). */
static bool read_hello(incoming_t *in, long long now)
{
    ssize_t n = recv(in->fd, (char *)&in->hello + in->got, sizeof in->hello - in->got, MSG_DONTWAIT);
    if (n > 0)
        in->got += (size_t)n;
    if (in->got == sizeof in->hello) {
        take_hello(in);
        return true;
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || now > in->deadline_ns) {
        refuse(in->fd, "it did not present this job's secret");
        return true;
    }
    return false;
}

/* Our connection's answer: ACK (up), NACK (the peer's own connection to us wins: await it), or its end
 * (the peer died). */
static void read_answer(int proc)
{
    peer_t *p = &peers[proc];
    uint8_t byte;
    ssize_t n = recv(p->fd, &byte, 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n == 1 && byte == ACK) {
        atomic_store_explicit(&p->state, UP, memory_order_release);
        return;
    }
    if (n == 1) {
        mpcrt_spin_lock(&p->lock);
        close(p->fd);
        p->fd = -1;
        atomic_store(&p->state, AWAIT);
        mpcrt_spin_unlock(&p->lock);
        return;
    }
    end_peer(proc);
}

static int tcp_poll(mpcrt_rail_deliver_fn deliver)
{
    if (!peers || atomic_exchange_explicit(&poll_lock, 1, memory_order_acquire))
        return 0;
    if (atomic_load_explicit(&failed_any, memory_order_relaxed)) {
        atomic_store(&failed_any, false);
        for (int p = 0; p < num_procs; p++)
            if (atomic_load(&peers[p].state) == FAILED)
                end_peer(p);
    }
    int n = 0;
    for (int p = 0; p < num_procs; p++) {
        int state = atomic_load_explicit(&peers[p].state, memory_order_acquire);
        if (state == UP || state == CONNECTING || state == OPENING) {
            pfd_owner[n] = p;
            pfds[n++] = (struct pollfd){peers[p].fd, state == OPENING ? POLLOUT : POLLIN, 0};
        }
    }
    if (listen_fd >= 0) {
        pfd_owner[n] = -1;
        pfds[n++] = (struct pollfd){listen_fd, POLLIN, 0};
    }
    int handled = 0;
    if (poll(pfds, (nfds_t)n, 0) > 0) {
        for (int i = 0; i < n; i++) {
            int p = pfd_owner[i];
            if (p < 0 || !(pfds[i].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
                continue;
            int state = atomic_load(&peers[p].state);
            if (state == OPENING) {
                finish_connect(p);
                continue;
            }
            if (state == CONNECTING) {
                read_answer(p);
                continue;
            }
            bool ended;
            handled += drain(&peers[p], deliver, &ended);
            if (ended)
                end_peer(p);
        }
        if (listen_fd >= 0 && (pfds[n - 1].revents & POLLIN))
            accept_new();
    }
    /* Hellos still coming (few, and only while connections are made). */
    if (nincoming) {
        long long now = now_ns();
        for (int i = 0; i < nincoming;)
            if (read_hello(&incoming[i], now))
                incoming[i] = incoming[--nincoming];
            else
                i++;
    }
    atomic_store_explicit(&poll_lock, 0, memory_order_release);
    return handled;
}

static size_t tcp_max_packet(void)
{
    return MAX_PACKET;
}

static void tcp_close(void)
{
    mpcrt_tcp_watch_stop();
    for (int p = 0; peers && p < num_procs; p++) {
        if (peers[p].fd >= 0)
            close(peers[p].fd);
        free(peers[p].in);
        free(peers[p].out);
    }
    for (int i = 0; i < nincoming; i++)
        close(incoming[i].fd);
    free(incoming);
    incoming = NULL;
    nincoming = incoming_cap = 0;
    free(peers);
    free(pfds);
    free(pfd_owner);
    peers = NULL;
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    if (netns_fd >= 0)
        close(netns_fd);
    netns_fd = -1;
}

const struct mpcrt_rail_ops mpcrt_rail_tcp = {
    .name = "tcp",
    .open = tcp_open,
    .connect = tcp_connect,
    .connected = NULL,
    .send = tcp_send,
    .flush = tcp_flush,
    .unflushed = tcp_unflushed,
    .poll = tcp_poll,
    .get = NULL,
    .close = tcp_close,
    .max_packet = tcp_max_packet,
};
