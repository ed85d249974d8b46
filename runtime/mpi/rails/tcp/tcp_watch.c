/* The tcp rail's doorbell: a kernel thread that rings the process's doorbell when a socket becomes
 * readable while VPs sleep. An idle VP sleeps on a futex (the doorbell, runtime/threads vp.c), which a
 * socket cannot wake: without this an idle process looked at its sockets only at the end of its back-off
 * (up to 2 ms; bench/mpi/idle over tcp: a 0.95 ms round trip against 0.08 ms over shm). The thread only
 * waits on the sockets while some VP of the process is asleep (mpcrt_sched_await_sleepers), so a busy
 * process pays nothing per packet; edge-triggered epoll reports each arrival once, and the thread never
 * reads a socket (the rail's poll does). */
#define _GNU_SOURCE
#include "tcp_watch.h"
#include "../../../threads/sched.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define WATCH_TIMEOUT_NS 100000000L /* how often the thread looks at `stop` when nothing happens */

static int epoll_fd = -1, stop_fd = -1;
static pthread_t thread;
static bool running;
static _Atomic bool stop;

/* When no other rail gave the process a doorbell (tcp only), the VPs sleep on this one. */
static _Atomic uint32_t own_bell, own_sleepers;
static bool own_doorbell;

static void *watch(void *arg)
{
    (void)arg;
    struct epoll_event events[16];
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        if (!mpcrt_sched_await_sleepers(WATCH_TIMEOUT_NS))
            continue;
        int n = epoll_wait(epoll_fd, events, 16, (int)(WATCH_TIMEOUT_NS / 1000000));
        if (n > 0 && !atomic_load_explicit(&stop, memory_order_acquire))
            mpcrt_sched_ring();
    }
    return NULL;
}

int mpcrt_tcp_watch_start(void)
{
    if (!mpcrt_sched_has_doorbell()) {
        mpcrt_sched_set_doorbell(&own_bell, &own_sleepers);
        own_doorbell = true;
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll_fd < 0 || stop_fd < 0)
        return -errno;
    mpcrt_tcp_watch_fd(stop_fd);
    /* The thread takes no signal: those are the program's (and mpcrun's forwarded ones its threads'). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, NULL, watch, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        return -rc;
    running = true;
    return 0;
}

void mpcrt_tcp_watch_fd(int fd)
{
    /* A closed socket leaves the set by itself. */
    /* Writable edges too: a connect that completes, or room for what waits in the outbox. */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.fd = fd};
    if (epoll_fd >= 0 && epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0 && errno != EEXIST)
        fprintf(stderr, "mpcrt: the tcp rail cannot watch a socket (%d): an idle process answers late\n",
                errno);
}

void mpcrt_tcp_watch_stop(void)
{
    if (running) {
        atomic_store_explicit(&stop, true, memory_order_release);
        uint64_t one = 1;
        if (write(stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
            perror("mpcrt: tcp watcher stop");
        mpcrt_sched_release_watchers();
        pthread_join(thread, NULL);
        running = false;
    }
    if (own_doorbell) {
        mpcrt_sched_set_doorbell(NULL, NULL);
        own_doorbell = false;
    }
    if (epoll_fd >= 0)
        close(epoll_fd);
    if (stop_fd >= 0)
        close(stop_fd);
    epoll_fd = stop_fd = -1;
    atomic_store(&stop, false);
}
