/* MPI API: the large-count (`_c`, MPI 4.0) forms of the point-to-point calls. Counts are MPI_Count
 * everywhere inside the engine, so these only differ from the int forms in their signatures. */
#include "api_pt2pt.h"

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Send_c", buf, count, type, dest, tag, comm, MPCRT_SEND_STANDARD);
}
MPCRT_PMPI_ALIAS(Send_c)

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Ssend_c", buf, count, type, dest, tag, comm, MPCRT_SEND_SYNC);
}
MPCRT_PMPI_ALIAS(Ssend_c)

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Rsend_c", buf, count, type, dest, tag, comm, MPCRT_SEND_READY);
}
MPCRT_PMPI_ALIAS(Rsend_c)

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Bsend_c", buf, count, type, dest, tag, comm, MPCRT_SEND_BUFFERED);
}
MPCRT_PMPI_ALIAS(Bsend_c)

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    return mpcrt_pt2pt_recv_blocking("MPI_Recv_c", buf, count, type, source, tag, comm, status);
}
MPCRT_PMPI_ALIAS(Recv_c)

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Isend_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_STANDARD, false, request);
}
MPCRT_PMPI_ALIAS(Isend_c)

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Issend_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_SYNC, false, request);
}
MPCRT_PMPI_ALIAS(Issend_c)

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Irsend_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_READY, false, request);
}
MPCRT_PMPI_ALIAS(Irsend_c)

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Ibsend_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_BUFFERED, false, request);
}
MPCRT_PMPI_ALIAS(Ibsend_c)

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Irecv_c", true, buf, count, type, source, tag, comm,
                                         MPCRT_SEND_STANDARD, false, request);
}
MPCRT_PMPI_ALIAS(Irecv_c)

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Send_init_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_STANDARD, true, request);
}
MPCRT_PMPI_ALIAS(Send_init_c)

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Ssend_init_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_SYNC, true, request);
}
MPCRT_PMPI_ALIAS(Ssend_init_c)

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Rsend_init_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_READY, true, request);
}
MPCRT_PMPI_ALIAS(Rsend_init_c)

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Bsend_init_c", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_BUFFERED, true, request);
}
MPCRT_PMPI_ALIAS(Bsend_init_c)

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Recv_init_c", true, buf, count, type, source, tag, comm,
                                         MPCRT_SEND_STANDARD, true, request);
}
MPCRT_PMPI_ALIAS(Recv_init_c)

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
    return mpcrt_pt2pt_mrecv("MPI_Mrecv_c", buf, count, type, message, status);
}
MPCRT_PMPI_ALIAS(Mrecv_c)

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
    return mpcrt_pt2pt_imrecv("MPI_Imrecv_c", buf, count, type, message, request);
}
MPCRT_PMPI_ALIAS(Imrecv_c)

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return mpcrt_pt2pt_buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
MPCRT_PMPI_ALIAS(Buffer_attach_c)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return mpcrt_pt2pt_buffer_detach("MPI_Buffer_detach_c", buffer_addr, size);
}
MPCRT_PMPI_ALIAS(Buffer_detach_c)
