/* The tcp rail's doorbell thread (tcp_watch.c): wakes the process's sleeping VPs when a socket becomes
 * readable. */
#ifndef MPCRT_MPI_RAILS_TCP_WATCH_H
#define MPCRT_MPI_RAILS_TCP_WATCH_H

/* Starts the thread (and gives the process a doorbell when no other rail did): 0 or a negative errno. */
int mpcrt_tcp_watch_start(void);
/* Adds a socket (listening, connecting, connected, or an accepted one before its hello). */
void mpcrt_tcp_watch_fd(int fd);
/* Stops and joins the thread; the sockets are the rail's to close. */
void mpcrt_tcp_watch_stop(void);

#endif
