/* Helpers shared by the point-to-point API files: the checked operations behind the int-count functions
 * and their large-count (`_c`) forms, which only differ in the count's type. Each takes the name of the
 * MPI function for its error messages. */
#ifndef MPCRT_MPI_API_PT2PT_H
#define MPCRT_MPI_API_PT2PT_H

#include "pt2pt.h"

int PMPI_Wait(MPI_Request *request, MPI_Status *status);

int mpcrt_pt2pt_send_blocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                              int tag, MPI_Comm comm, mpcrt_send_mode_t mode);
int mpcrt_pt2pt_recv_blocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                              int tag, MPI_Comm comm, MPI_Status *status);
/* A checked request, not started and without a handle; NULL with *rc the reported error. */
mpcrt_request_t *mpcrt_pt2pt_new_request(const char *fn, bool receiving, const void *buf, MPI_Count count,
                                         MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                                         mpcrt_send_mode_t mode, int *rc);
/* MPI_Isend/Irecv... (started) and MPI_Send_init/Recv_init... (persistent, inactive). */
int mpcrt_pt2pt_start_nonblocking(const char *fn, bool receiving, const void *buf, MPI_Count count,
                                  MPI_Datatype type, int peer, int tag, MPI_Comm comm, mpcrt_send_mode_t mode,
                                  bool persistent, MPI_Request *request);
int mpcrt_pt2pt_imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                       MPI_Request *request);
int mpcrt_pt2pt_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                      MPI_Status *status);
int mpcrt_pt2pt_buffer_attach(const char *fn, void *buffer, MPI_Count size);
int mpcrt_pt2pt_buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size);

#endif
