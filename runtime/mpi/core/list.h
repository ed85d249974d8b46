/* Intrusive doubly linked lists with head and tail pointers: the item carries its own `next`/`prev` links
 * (named by the caller, so that one item can sit in several lists). Shared by the matching queues and the
 * remote protocol's rendezvous records. */
#ifndef MPCRT_MPI_CORE_LIST_H
#define MPCRT_MPI_CORE_LIST_H

#define MPCRT_LIST_APPEND(head, tail, item, next, prev)                                                      \
    do {                                                                                                     \
        (item)->next = NULL;                                                                                 \
        (item)->prev = (tail);                                                                               \
        if (tail)                                                                                            \
            (tail)->next = (item);                                                                           \
        else                                                                                                 \
            (head) = (item);                                                                                 \
        (tail) = (item);                                                                                     \
    } while (0)

#define MPCRT_LIST_REMOVE(head, tail, item, next, prev)                                                      \
    do {                                                                                                     \
        if ((item)->prev)                                                                                    \
            (item)->prev->next = (item)->next;                                                               \
        else                                                                                                 \
            (head) = (item)->next;                                                                           \
        if ((item)->next)                                                                                    \
            (item)->next->prev = (item)->prev;                                                               \
        else                                                                                                 \
            (tail) = (item)->prev;                                                                           \
    } while (0)

#endif
