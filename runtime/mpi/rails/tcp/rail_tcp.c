/* The tcp rail: processes anywhere. One connection per pair of processes, made at start-up (the higher
 * process connects to the lower, which accepts), length-prefixed packets on non-blocking sockets. A
 * connection that ends reports its peer lost (mpcrt_rails_report_lost). Each
 * process's card carries its address and a random secret; a connection must open with the secret of the
 * process it reaches (only the job's members can read cards, through PMIx), so a connection without it is
 * refused and logged, as is any connection once the job is connected. The listener binds only to the
 * address of the interface in use (MPCRT_TCP_IF, else the first non-loopback IPv4 interface). */
#define _GNU_SOURCE
#include "../rail.h"
#include "../../../threads/config.h"

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
#include <unistd.h>

enum { SECRET_BYTES = 16, MAX_PACKET = 64 << 10, HELLO_TIMEOUT_MS = 5000 };

typedef struct {
    uint8_t secret[SECRET_BYTES]; /* the secret of the process being reached */
    int32_t proc;                 /* who connects */
} hello_t;

typedef struct {
    int fd; /* -1: not connected through this rail */
    /* Receiving: bytes of the packet being assembled (length prefix first). */
    char *in;
    size_t in_len, in_cap;
    /* Sending: the unsent tail of a packet the socket took only partly (sender's outbox lock held). */
    char *out;
    size_t out_len, out_off;
    uint8_t secret[SECRET_BYTES]; /* the peer's, from its card */
} peer_t;

static int listen_fd = -1, my_proc, num_procs;
static peer_t *peers;
static uint8_t my_secret[SECRET_BYTES];
static struct pollfd *pfds;
static _Atomic int poll_lock;
static bool connected_all;
static int expected_higher; /* higher processes this rail reaches: they connect to us */

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
     * stays where it was made, the rail's sockets are created in the namespace named here. */
    const char *path = mpcrt_config_str(MPCRT_CFG_NETNS);
    if (!*path)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
        fprintf(stderr, "mpcrt: MPCRT_NETNS=%s: cannot join it (%s)\n", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

static int tcp_open(int me, int nprocs, char *card, size_t card_size)
{
    my_proc = me;
    num_procs = nprocs;
    join_netns();
    peers = calloc((size_t)nprocs, sizeof *peers);
    pfds = calloc((size_t)nprocs + 1, sizeof *pfds);
    if (!peers || !pfds)
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
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(listen_fd, 128) != 0)
        return -errno;
    socklen_t len = sizeof sa;
    getsockname(listen_fd, (struct sockaddr *)&sa, &len);
    char secret_hex[2 * SECRET_BYTES + 1], ip[INET_ADDRSTRLEN];
    hex(my_secret, SECRET_BYTES, secret_hex);
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    snprintf(card, card_size, "%s:%d:%s", ip, ntohs(sa.sin_port), secret_hex);
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

/* Start-up: accept connections from every higher process, each opening with our secret. */
static int accept_higher(void)
{
    int expected = expected_higher;
    while (expected > 0) {
        struct pollfd p = {listen_fd, POLLIN, 0};
        if (poll(&p, 1, 60000) <= 0)
            return -ETIMEDOUT;
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        hello_t hello;
        struct pollfd h = {fd, POLLIN, 0};
        ssize_t got = poll(&h, 1, HELLO_TIMEOUT_MS) == 1 ? recv(fd, &hello, sizeof hello, MSG_WAITALL) : -1;
        if (got != (ssize_t)sizeof hello || memcmp(hello.secret, my_secret, SECRET_BYTES) != 0) {
            refuse(fd, "it did not present this job's secret");
            continue;
        }
        if (hello.proc <= my_proc || hello.proc >= num_procs || peers[hello.proc].fd >= 0) {
            refuse(fd, "unexpected process number");
            continue;
        }
        set_options(fd);
        peers[hello.proc].fd = fd;
        expected--;
    }
    return 0;
}

static int tcp_connect(int proc, const char *card)
{
    char ip[64];
    int port;
    const char *colon = strchr(card, ':'), *colon2 = colon ? strchr(colon + 1, ':') : NULL;
    if (!colon || !colon2 || (size_t)(colon - card) >= sizeof ip)
        return -EINVAL;
    memcpy(ip, card, (size_t)(colon - card));
    ip[colon - card] = '\0';
    port = atoi(colon + 1);
    if (unhex(colon2 + 1, peers[proc].secret, SECRET_BYTES) != 0)
        return -EINVAL;
    if (proc > my_proc) {
        /* The higher process connects (before the fence that ends start-up); we accept it after. */
        expected_higher++;
        return 0;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return -EINVAL;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    hello_t hello = {.proc = my_proc};
    memcpy(hello.secret, peers[proc].secret, SECRET_BYTES);
    if (send(fd, &hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello) {
        close(fd);
        return -EIO;
    }
    set_options(fd);
    peers[proc].fd = fd;
    return 0;
}

static void tcp_connected(void)
{
    /* Every higher process connected and said hello before the fence: their connections wait in the
     * listener's backlog. */
    if (accept_higher() != 0)
        fprintf(stderr, "mpcrt: process %d: some processes never connected through the tcp rail\n", my_proc);
    connected_all = true; /* any connection from now on is not from this job */
}

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
    return 0;
}

static int tcp_send(int proc, const void *header, size_t header_bytes, const void *payload,
                    size_t payload_bytes)
{
    peer_t *p = &peers[proc];
    if (p->fd < 0)
        return -EPIPE; /* its connection ended: the protocol layer drops what is for it */
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
    }
    return 0;
}

/* Reads what a connection has and hands every complete packet to deliver; *ended when the peer closed it
 * or it broke (every complete packet before that was delivered). */
static int drain(peer_t *p, mpcrt_rail_deliver_fn deliver, bool *ended)
{
    int handled = 0;
    *ended = false;
    for (;;) {
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

static int tcp_poll(mpcrt_rail_deliver_fn deliver)
{
    if (!peers || atomic_exchange_explicit(&poll_lock, 1, memory_order_acquire))
        return 0;
    int n = 0;
    for (int p = 0; p < num_procs; p++)
        if (peers[p].fd >= 0)
            pfds[n++] = (struct pollfd){peers[p].fd, POLLIN, 0};
    if (connected_all && listen_fd >= 0)
        pfds[n++] = (struct pollfd){listen_fd, POLLIN, 0};
    int handled = 0;
    if (poll(pfds, (nfds_t)n, 0) > 0) {
        for (int i = 0, p = 0; p < num_procs; p++) {
            if (peers[p].fd < 0)
                continue;
            if (!(pfds[i++].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            bool ended;
            handled += drain(&peers[p], deliver, &ended);
            if (ended) {
                close(peers[p].fd);
                peers[p].fd = -1; /* sends to it fail from now on, and it is polled no more */
                mpcrt_rails_report_lost(p);
            }
        }
        if (connected_all && listen_fd >= 0 && (pfds[n - 1].revents & POLLIN)) {
            int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                refuse(fd, "every process of this job is already connected");
        }
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
    for (int p = 0; peers && p < num_procs; p++) {
        if (peers[p].fd >= 0)
            close(peers[p].fd);
        free(peers[p].in);
        free(peers[p].out);
    }
    free(peers);
    free(pfds);
    peers = NULL;
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
}

const struct mpcrt_rail_ops mpcrt_rail_tcp = {
    .name = "tcp",
    .open = tcp_open,
    .connect = tcp_connect,
    .connected = tcp_connected,
    .send = tcp_send,
    .poll = tcp_poll,
    .get = NULL,
    .close = tcp_close,
    .max_packet = tcp_max_packet,
};
