/* MPI functions small enough to need no module: C<->Fortran handle and status conversions, address
 * arithmetic and MPI_Pcontrol. Each definition is a fallback: when a module defines the same PMPI_x (the
 * datatype module owns MPI_Aint_add/diff, MPI-IO will own MPI_File_c2f/f2c), the generated api_defined.h
 * names it and the definition here drops out. */
#include "../mpi_internal.h"
#include "api_defined.h"

#include <stddef.h>

/* Integer handles are their own Fortran handles (MPICH ABI). mpi.h also defines these names as macros,
 * hence the parentheses around the names. */
#ifndef MPCRT_API_DEFINED_Comm_c2f
MPI_Fint (PMPI_Comm_c2f)(MPI_Comm comm) { return (MPI_Fint)comm; }
MPCRT_PMPI_ALIAS(Comm_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Comm_f2c
MPI_Comm (PMPI_Comm_f2c)(MPI_Fint comm) { return (MPI_Comm)comm; }
MPCRT_PMPI_ALIAS(Comm_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Type_c2f
MPI_Fint (PMPI_Type_c2f)(MPI_Datatype datatype) { return (MPI_Fint)datatype; }
MPCRT_PMPI_ALIAS(Type_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Type_f2c
MPI_Datatype (PMPI_Type_f2c)(MPI_Fint datatype) { return (MPI_Datatype)datatype; }
MPCRT_PMPI_ALIAS(Type_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Group_c2f
MPI_Fint (PMPI_Group_c2f)(MPI_Group group) { return (MPI_Fint)group; }
MPCRT_PMPI_ALIAS(Group_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Group_f2c
MPI_Group (PMPI_Group_f2c)(MPI_Fint group) { return (MPI_Group)group; }
MPCRT_PMPI_ALIAS(Group_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Info_c2f
MPI_Fint (PMPI_Info_c2f)(MPI_Info info) { return (MPI_Fint)info; }
MPCRT_PMPI_ALIAS(Info_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Info_f2c
MPI_Info (PMPI_Info_f2c)(MPI_Fint info) { return (MPI_Info)info; }
MPCRT_PMPI_ALIAS(Info_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Request_c2f
MPI_Fint (PMPI_Request_c2f)(MPI_Request request) { return (MPI_Fint)request; }
MPCRT_PMPI_ALIAS(Request_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Request_f2c
MPI_Request (PMPI_Request_f2c)(MPI_Fint request) { return (MPI_Request)request; }
MPCRT_PMPI_ALIAS(Request_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Op_c2f
MPI_Fint (PMPI_Op_c2f)(MPI_Op op) { return (MPI_Fint)op; }
MPCRT_PMPI_ALIAS(Op_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Op_f2c
MPI_Op (PMPI_Op_f2c)(MPI_Fint op) { return (MPI_Op)op; }
MPCRT_PMPI_ALIAS(Op_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Errhandler_c2f
MPI_Fint (PMPI_Errhandler_c2f)(MPI_Errhandler errhandler) { return (MPI_Fint)errhandler; }
MPCRT_PMPI_ALIAS(Errhandler_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Errhandler_f2c
MPI_Errhandler (PMPI_Errhandler_f2c)(MPI_Fint errhandler) { return (MPI_Errhandler)errhandler; }
MPCRT_PMPI_ALIAS(Errhandler_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Win_c2f
MPI_Fint (PMPI_Win_c2f)(MPI_Win win) { return (MPI_Fint)win; }
MPCRT_PMPI_ALIAS(Win_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Win_f2c
MPI_Win (PMPI_Win_f2c)(MPI_Fint win) { return (MPI_Win)win; }
MPCRT_PMPI_ALIAS(Win_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Message_c2f
MPI_Fint (PMPI_Message_c2f)(MPI_Message message) { return (MPI_Fint)message; }
MPCRT_PMPI_ALIAS(Message_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Message_f2c
MPI_Message (PMPI_Message_f2c)(MPI_Fint message) { return (MPI_Message)message; }
MPCRT_PMPI_ALIAS(Message_f2c)
#endif
#ifndef MPCRT_API_DEFINED_Session_c2f
MPI_Fint (PMPI_Session_c2f)(MPI_Session session) { return (MPI_Fint)session; }
MPCRT_PMPI_ALIAS(Session_c2f)
#endif
#ifndef MPCRT_API_DEFINED_Session_f2c
MPI_Session (PMPI_Session_f2c)(MPI_Fint session) { return (MPI_Session)session; }
MPCRT_PMPI_ALIAS(Session_f2c)
#endif

/* MPI_File is a pointer, so its Fortran handle needs a table; until MPI-IO can open a file, MPI_FILE_NULL
 * (Fortran 0) is the only file handle there is. */
#ifndef MPCRT_API_DEFINED_File_c2f
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    (void)file;
    return 0;
}
MPCRT_PMPI_ALIAS(File_c2f)
#endif
#ifndef MPCRT_API_DEFINED_File_f2c
MPI_File PMPI_File_f2c(MPI_Fint file)
{
    (void)file;
    return MPI_FILE_NULL;
}
MPCRT_PMPI_ALIAS(File_f2c)
#endif

/* Statuses: an INTEGER(MPI_F_STATUS_SIZE) array and an MPI_F08_status hold the five int fields of
 * MPI_Status in the same order (MPICH ABI), MPI_SOURCE/TAG/ERROR at MPI_F_SOURCE/TAG/ERROR. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "status sizes differ");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint), "MPI_F_SOURCE");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint), "MPI_F_TAG");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint), "MPI_F_ERROR");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status size");

/* MPI_STATUS_IGNORE cannot be converted (MPI 4.0 section 19.3.5), nor can a null pointer. */
static bool usable(const void *status)
{
    return status != NULL && status != (const void *)MPI_STATUS_IGNORE;
}

static int bad_status(const char *function, const void *from, const void *to)
{
    const void *bad = usable(from) ? to : from;
    return mpcrt_mpi_error(MPI_COMM_SELF, function, MPI_ERR_ARG, "the %s status is %s",
                           bad == from ? "input" : "output", bad ? "MPI_STATUS_IGNORE" : "a null pointer");
}

#define STATUS_OK(from, to) (usable(from) && usable(to))

static void fields_to_ints(const MPI_Status *c, MPI_Fint *f)
{
    f[0] = c->count_lo;
    f[1] = c->count_hi_and_cancelled;
    f[MPI_F_SOURCE] = c->MPI_SOURCE;
    f[MPI_F_TAG] = c->MPI_TAG;
    f[MPI_F_ERROR] = c->MPI_ERROR;
}

static void ints_to_fields(const MPI_Fint *f, MPI_Status *c)
{
    c->count_lo = f[0];
    c->count_hi_and_cancelled = f[1];
    c->MPI_SOURCE = f[MPI_F_SOURCE];
    c->MPI_TAG = f[MPI_F_TAG];
    c->MPI_ERROR = f[MPI_F_ERROR];
}

#ifndef MPCRT_API_DEFINED_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!STATUS_OK(c_status, f_status))
        return bad_status("MPI_Status_c2f", c_status, f_status);
    fields_to_ints(c_status, f_status);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_c2f)
#endif

#ifndef MPCRT_API_DEFINED_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!STATUS_OK(f_status, c_status))
        return bad_status("MPI_Status_f2c", f_status, c_status);
    ints_to_fields(f_status, c_status);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_f2c)
#endif

#ifndef MPCRT_API_DEFINED_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    if (!STATUS_OK(c_status, f08_status))
        return bad_status("MPI_Status_c2f08", c_status, f08_status);
    *f08_status = (MPI_F08_status){c_status->count_lo, c_status->count_hi_and_cancelled, c_status->MPI_SOURCE,
                                   c_status->MPI_TAG, c_status->MPI_ERROR};
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_c2f08)
#endif

#ifndef MPCRT_API_DEFINED_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    if (!STATUS_OK(f08_status, c_status))
        return bad_status("MPI_Status_f082c", f08_status, c_status);
    *c_status = (MPI_Status){f08_status->count_lo, f08_status->count_hi_and_cancelled, f08_status->MPI_SOURCE,
                             f08_status->MPI_TAG, f08_status->MPI_ERROR};
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_f082c)
#endif

#ifndef MPCRT_API_DEFINED_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    if (!STATUS_OK(f_status, f08_status))
        return bad_status("MPI_Status_f2f08", f_status, f08_status);
    *f08_status = (MPI_F08_status){f_status[0], f_status[1], f_status[MPI_F_SOURCE], f_status[MPI_F_TAG],
                                   f_status[MPI_F_ERROR]};
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_f2f08)
#endif

#ifndef MPCRT_API_DEFINED_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    if (!STATUS_OK(f08_status, f_status))
        return bad_status("MPI_Status_f082f", f08_status, f_status);
    f_status[0] = f08_status->count_lo;
    f_status[1] = f08_status->count_hi_and_cancelled;
    f_status[MPI_F_SOURCE] = f08_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = f08_status->MPI_TAG;
    f_status[MPI_F_ERROR] = f08_status->MPI_ERROR;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Status_f082f)
#endif

/* Address arithmetic on absolute addresses and displacements (MPI 4.0 section 5.1), done unsigned so that
 * wrap-around is defined. */
#ifndef MPCRT_API_DEFINED_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((unsigned long)base + (unsigned long)disp);
}
MPCRT_PMPI_ALIAS(Aint_add)
#endif
#ifndef MPCRT_API_DEFINED_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((unsigned long)addr1 - (unsigned long)addr2);
}
MPCRT_PMPI_ALIAS(Aint_diff)
#endif

/* The library itself makes no use of the profiling level (MPI 4.0 section 15.2): only tools that
 * intercept MPI_Pcontrol do. */
#ifndef MPCRT_API_DEFINED_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Pcontrol)
#endif
