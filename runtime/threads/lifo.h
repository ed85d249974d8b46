/* Lock-free multi-producer stacks whose consumer empties them in one exchange: push-only CAS plus take-all
 * has no ABA problem. Macros, for any node type with a `link` pointer; `top` is an _Atomic(node *). Users:
 * the VPs' wake-up inboxes (inbox.c), and in the MPI layer the receivers' message inboxes and the block
 * caches' return lists. */
#ifndef MPCRT_THREADS_LIFO_H
#define MPCRT_THREADS_LIFO_H

#include <stdatomic.h>

/* Pushes node; `order` is the CAS's success order (at least release: the consumer's exchange acquires). */
#define MPCRT_LIFO_PUSH(top, node, link, order)                                                              \
    do {                                                                                                     \
        __typeof__(node) mpcrt_lifo_old_ = atomic_load_explicit((top), memory_order_relaxed);                \
        do                                                                                                   \
            (node)->link = mpcrt_lifo_old_;                                                                  \
        while (!atomic_compare_exchange_weak_explicit((top), &mpcrt_lifo_old_, (node), (order),              \
                                                      memory_order_relaxed));                                \
    } while (0)

/* Turns `list` (as taken, newest first) into push order, oldest first. */
#define MPCRT_LIFO_REVERSE(list, link)                                                                       \
    do {                                                                                                     \
        __typeof__(list) mpcrt_lifo_fifo_ = NULL;                                                            \
        while (list) {                                                                                       \
            __typeof__(list) mpcrt_lifo_next_ = (list)->link;                                                \
            (list)->link = mpcrt_lifo_fifo_;                                                                 \
            mpcrt_lifo_fifo_ = (list);                                                                       \
            (list) = mpcrt_lifo_next_;                                                                       \
        }                                                                                                    \
        (list) = mpcrt_lifo_fifo_;                                                                           \
    } while (0)

#endif
