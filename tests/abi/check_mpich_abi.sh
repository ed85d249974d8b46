#!/bin/sh
# check_mpich_abi.sh -- verify that mpcrt's <mpi.h> is ABI compatible with MPICH's.
#
# Usage: check_mpich_abi.sh <mpcrt-include-dir>
#
# Builds the same probe programs twice, once against our header (-I<dir>) and
# once against MPICH's header, and compares what they report: values, types and
# "macro or not" of the predefined constants, sizes and layouts of the ABI types,
# callback and prototype signatures, and (via nm) the external symbols a program
# ends up referencing and the C++ mangling of the ABI types.
#
# Environment: CC (default cc), CXX (default c++, C++ checks skipped if absent),
#              MPICH_INCLUDE_DIR (default /usr/include/x86_64-linux-gnu/mpich).
# Exit status: 0 identical, 1 mismatch or build failure, 77 MPICH header absent.

set -u

if [ $# -ne 1 ] || [ ! -f "$1/mpi.h" ]; then
    echo "usage: $0 <include-dir containing our mpi.h>" >&2
    exit 1
fi
OURS=$1
MPICH=${MPICH_INCLUDE_DIR:-/usr/include/x86_64-linux-gnu/mpich}
CC=${CC:-cc}
CXX=${CXX:-c++}
NM=${NM:-nm}

if [ ! -f "$MPICH/mpi.h" ]; then
    echo "SKIP: MPICH header not found at $MPICH/mpi.h (apt-get install libmpich-dev)"
    exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpcrt-abi.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' HUP INT TERM

# ---------------------------------------------------------------------------
# Constants compared by name: value (as long), type, and whether it is a macro.
# ---------------------------------------------------------------------------
cat >"$TMP/names.txt" <<'EOF'
MPI_VERSION MPI_SUBVERSION
MPI_COMM_NULL MPI_OP_NULL MPI_GROUP_NULL MPI_DATATYPE_NULL MPI_REQUEST_NULL MPI_ERRHANDLER_NULL
MPI_MESSAGE_NULL MPI_MESSAGE_NO_PROC MPI_INFO_NULL MPI_WIN_NULL MPI_SESSION_NULL MPI_FILE_NULL
MPI_COMM_WORLD MPI_COMM_SELF MPI_GROUP_EMPTY MPI_INFO_ENV
MPI_ERRORS_ARE_FATAL MPI_ERRORS_RETURN MPI_ERRORS_ABORT
MPI_MAX MPI_MIN MPI_SUM MPI_PROD MPI_LAND MPI_BAND MPI_LOR MPI_BOR MPI_LXOR MPI_BXOR
MPI_MINLOC MPI_MAXLOC MPI_REPLACE MPI_NO_OP
MPI_CHAR MPI_SIGNED_CHAR MPI_UNSIGNED_CHAR MPI_BYTE MPI_WCHAR MPI_SHORT MPI_UNSIGNED_SHORT
MPI_INT MPI_UNSIGNED MPI_LONG MPI_UNSIGNED_LONG MPI_FLOAT MPI_DOUBLE MPI_LONG_DOUBLE
MPI_LONG_LONG_INT MPI_LONG_LONG MPI_UNSIGNED_LONG_LONG MPI_PACKED MPI_LB MPI_UB
MPI_FLOAT_INT MPI_DOUBLE_INT MPI_LONG_INT MPI_SHORT_INT MPI_2INT MPI_LONG_DOUBLE_INT
MPI_COMPLEX MPI_DOUBLE_COMPLEX MPI_LOGICAL MPI_REAL MPI_DOUBLE_PRECISION MPI_INTEGER
MPI_2INTEGER MPI_2REAL MPI_2DOUBLE_PRECISION MPI_CHARACTER
MPI_REAL4 MPI_REAL8 MPI_REAL16 MPI_COMPLEX8 MPI_COMPLEX16 MPI_COMPLEX32
MPI_INTEGER1 MPI_INTEGER2 MPI_INTEGER4 MPI_INTEGER8 MPI_INTEGER16
MPI_INT8_T MPI_INT16_T MPI_INT32_T MPI_INT64_T MPI_UINT8_T MPI_UINT16_T MPI_UINT32_T MPI_UINT64_T
MPI_C_BOOL MPI_C_FLOAT_COMPLEX MPI_C_COMPLEX MPI_C_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX
MPI_AINT MPI_OFFSET MPI_COUNT
MPI_CXX_BOOL MPI_CXX_FLOAT_COMPLEX MPI_CXX_DOUBLE_COMPLEX MPI_CXX_LONG_DOUBLE_COMPLEX
MPI_TYPECLASS_REAL MPI_TYPECLASS_INTEGER MPI_TYPECLASS_COMPLEX
MPI_COMBINER_NAMED MPI_COMBINER_DUP MPI_COMBINER_CONTIGUOUS MPI_COMBINER_VECTOR
MPI_COMBINER_HVECTOR_INTEGER MPI_COMBINER_HVECTOR MPI_COMBINER_INDEXED
MPI_COMBINER_HINDEXED_INTEGER MPI_COMBINER_HINDEXED MPI_COMBINER_INDEXED_BLOCK
MPI_COMBINER_STRUCT_INTEGER MPI_COMBINER_STRUCT MPI_COMBINER_SUBARRAY MPI_COMBINER_DARRAY
MPI_COMBINER_F90_REAL MPI_COMBINER_F90_COMPLEX MPI_COMBINER_F90_INTEGER MPI_COMBINER_RESIZED
MPI_COMBINER_HINDEXED_BLOCK
MPI_ORDER_C MPI_ORDER_FORTRAN MPI_DISTRIBUTE_BLOCK MPI_DISTRIBUTE_CYCLIC MPI_DISTRIBUTE_NONE
MPI_DISTRIBUTE_DFLT_DARG
MPI_F_STATUS_SIZE MPI_F_SOURCE MPI_F_TAG MPI_F_ERROR
MPI_BOTTOM MPI_IN_PLACE MPI_STATUS_IGNORE MPI_STATUSES_IGNORE MPI_ERRCODES_IGNORE
MPI_ARGV_NULL MPI_ARGVS_NULL
MPI_PROC_NULL MPI_ANY_SOURCE MPI_ROOT MPI_ANY_TAG MPI_UNDEFINED
MPI_IDENT MPI_CONGRUENT MPI_SIMILAR MPI_UNEQUAL
MPI_THREAD_SINGLE MPI_THREAD_FUNNELED MPI_THREAD_SERIALIZED MPI_THREAD_MULTIPLE
MPI_MAX_PROCESSOR_NAME MPI_MAX_LIBRARY_VERSION_STRING MPI_MAX_ERROR_STRING MPI_MAX_PORT_NAME
MPI_MAX_OBJECT_NAME MPI_MAX_INFO_KEY MPI_MAX_INFO_VAL MPI_MAX_DATAREP_STRING
MPI_MAX_STRINGTAG_LEN MPI_MAX_PSET_NAME_LEN
MPI_KEYVAL_INVALID MPI_TAG_UB MPI_HOST MPI_IO MPI_WTIME_IS_GLOBAL MPI_UNIVERSE_SIZE
MPI_LASTUSEDCODE MPI_APPNUM
MPI_WIN_BASE MPI_WIN_SIZE MPI_WIN_DISP_UNIT MPI_WIN_CREATE_FLAVOR MPI_WIN_MODEL
MPI_WIN_FLAVOR_CREATE MPI_WIN_FLAVOR_ALLOCATE MPI_WIN_FLAVOR_DYNAMIC MPI_WIN_FLAVOR_SHARED
MPI_WIN_SEPARATE MPI_WIN_UNIFIED
MPI_LOCK_EXCLUSIVE MPI_LOCK_SHARED MPI_MODE_NOCHECK MPI_MODE_NOSTORE MPI_MODE_NOPUT
MPI_MODE_NOPRECEDE MPI_MODE_NOSUCCEED
MPI_GRAPH MPI_CART MPI_DIST_GRAPH
MPI_COMM_TYPE_SHARED MPI_COMM_TYPE_HW_GUIDED MPI_COMM_TYPE_HW_UNGUIDED
MPI_BSEND_OVERHEAD
MPI_MODE_CREATE MPI_MODE_RDONLY MPI_MODE_WRONLY MPI_MODE_RDWR MPI_MODE_DELETE_ON_CLOSE
MPI_MODE_UNIQUE_OPEN MPI_MODE_EXCL MPI_MODE_APPEND MPI_MODE_SEQUENTIAL
MPI_SEEK_SET MPI_SEEK_CUR MPI_SEEK_END MPI_DISPLACEMENT_CURRENT
MPI_SUCCESS MPI_ERR_BUFFER MPI_ERR_COUNT MPI_ERR_TYPE MPI_ERR_TAG MPI_ERR_COMM MPI_ERR_RANK
MPI_ERR_ROOT MPI_ERR_GROUP MPI_ERR_OP MPI_ERR_TOPOLOGY MPI_ERR_DIMS MPI_ERR_ARG MPI_ERR_UNKNOWN
MPI_ERR_TRUNCATE MPI_ERR_OTHER MPI_ERR_INTERN MPI_ERR_IN_STATUS MPI_ERR_PENDING MPI_ERR_REQUEST
MPI_ERR_ACCESS MPI_ERR_AMODE MPI_ERR_BAD_FILE MPI_ERR_CONVERSION MPI_ERR_DUP_DATAREP
MPI_ERR_FILE_EXISTS MPI_ERR_FILE_IN_USE MPI_ERR_FILE MPI_ERR_INFO MPI_ERR_INFO_KEY
MPI_ERR_INFO_VALUE MPI_ERR_INFO_NOKEY MPI_ERR_IO MPI_ERR_NAME MPI_ERR_NO_MEM MPI_ERR_NOT_SAME
MPI_ERR_NO_SPACE MPI_ERR_NO_SUCH_FILE MPI_ERR_PORT MPI_ERR_QUOTA MPI_ERR_READ_ONLY
MPI_ERR_SERVICE MPI_ERR_SPAWN MPI_ERR_UNSUPPORTED_DATAREP MPI_ERR_UNSUPPORTED_OPERATION
MPI_ERR_WIN MPI_ERR_BASE MPI_ERR_LOCKTYPE MPI_ERR_KEYVAL MPI_ERR_RMA_CONFLICT MPI_ERR_RMA_SYNC
MPI_ERR_SIZE MPI_ERR_DISP MPI_ERR_ASSERT MPI_ERR_RMA_RANGE MPI_ERR_RMA_ATTACH MPI_ERR_RMA_SHARED
MPI_ERR_RMA_FLAVOR
MPI_T_ERR_MEMORY MPI_T_ERR_NOT_INITIALIZED MPI_T_ERR_CANNOT_INIT MPI_T_ERR_INVALID_INDEX
MPI_T_ERR_INVALID_ITEM MPI_T_ERR_INVALID_HANDLE MPI_T_ERR_OUT_OF_HANDLES
MPI_T_ERR_OUT_OF_SESSIONS MPI_T_ERR_INVALID_SESSION MPI_T_ERR_CVAR_SET_NOT_NOW
MPI_T_ERR_CVAR_SET_NEVER MPI_T_ERR_PVAR_NO_STARTSTOP MPI_T_ERR_PVAR_NO_WRITE
MPI_T_ERR_PVAR_NO_ATOMIC MPI_T_ERR_INVALID_NAME MPI_T_ERR_INVALID
MPI_ERR_SESSION MPI_ERR_PROC_ABORTED MPI_ERR_VALUE_TOO_LARGE MPI_T_ERR_NOT_SUPPORTED
MPI_ERR_LASTCODE
MPI_NULL_COPY_FN MPI_NULL_DELETE_FN MPI_COMM_NULL_COPY_FN MPI_COMM_NULL_DELETE_FN
MPI_TYPE_NULL_COPY_FN MPI_TYPE_NULL_DELETE_FN MPI_WIN_NULL_COPY_FN MPI_WIN_NULL_DELETE_FN
MPI_CONVERSION_FN_NULL MPI_CONVERSION_FN_NULL_C
MPI_T_ENUM_NULL MPI_T_CVAR_HANDLE_NULL MPI_T_PVAR_HANDLE_NULL MPI_T_PVAR_SESSION_NULL
MPI_T_VERBOSITY_USER_BASIC MPI_T_VERBOSITY_USER_DETAIL MPI_T_VERBOSITY_USER_ALL
MPI_T_VERBOSITY_TUNER_BASIC MPI_T_VERBOSITY_TUNER_DETAIL MPI_T_VERBOSITY_TUNER_ALL
MPI_T_VERBOSITY_MPIDEV_BASIC MPI_T_VERBOSITY_MPIDEV_DETAIL MPI_T_VERBOSITY_MPIDEV_ALL
MPI_T_BIND_NO_OBJECT MPI_T_BIND_MPI_COMM MPI_T_BIND_MPI_DATATYPE MPI_T_BIND_MPI_ERRHANDLER
MPI_T_BIND_MPI_FILE MPI_T_BIND_MPI_GROUP MPI_T_BIND_MPI_OP MPI_T_BIND_MPI_REQUEST
MPI_T_BIND_MPI_WIN MPI_T_BIND_MPI_MESSAGE MPI_T_BIND_MPI_INFO
MPI_T_SCOPE_CONSTANT MPI_T_SCOPE_READONLY MPI_T_SCOPE_LOCAL MPI_T_SCOPE_GROUP
MPI_T_SCOPE_GROUP_EQ MPI_T_SCOPE_ALL MPI_T_SCOPE_ALL_EQ
MPI_T_PVAR_CLASS_STATE MPI_T_PVAR_CLASS_LEVEL MPI_T_PVAR_CLASS_SIZE MPI_T_PVAR_CLASS_PERCENTAGE
MPI_T_PVAR_CLASS_HIGHWATERMARK MPI_T_PVAR_CLASS_LOWWATERMARK MPI_T_PVAR_CLASS_COUNTER
MPI_T_PVAR_CLASS_AGGREGATE MPI_T_PVAR_CLASS_TIMER MPI_T_PVAR_CLASS_GENERIC
MPI_T_CB_REQUIRE_NONE MPI_T_CB_REQUIRE_MPI_RESTRICTED MPI_T_CB_REQUIRE_THREAD_SAFE
MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE MPI_T_SOURCE_ORDERED MPI_T_SOURCE_UNORDERED
EOF

# ---------------------------------------------------------------------------
# Every function of mpcrt's API table (runtime/mpi/api/functions.def), as our generated
# mpcrt/mpi_proto.h declares it: one "name<TAB>function pointer type" line per MPI_name that
# MPICH's headers also declare as a function (the C<->Fortran handle conversions are macros in
# both headers; MPICH 4.0.2 predates a few MPI 4.0 errata functions such as
# MPI_Status_set_elements_c). The parameter names stay: a function declarator in a type name
# may name its parameters.
# ---------------------------------------------------------------------------
table_prototypes() {
    awk '/^[A-Za-z]/ { s = $0; while (s !~ /;/ && (getline line) > 0) s = s " " line;
                       gsub(/[ \t]+/, " ", s); print s }' "$OURS/mpcrt/mpi_proto.h" |
        sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\) MPI_\([A-Za-z0-9_]*\)(\(.*\)) MPCRT_API;$/\2\t\1 (*)(\3)/p'
}
: >"$TMP/table.txt"
if [ -f "$OURS/mpcrt/mpi_proto.h" ]; then
    cat "$MPICH"/*.h | tr -c 'A-Za-z0-9_' '\n' | grep '^MPI_' | sort -u >"$TMP/mpich_words"
    table_prototypes >"$TMP/table_all.txt"
    awk -F '\t' 'NR == FNR { mpich[$0]; next } ("MPI_" $1) in mpich' "$TMP/mpich_words" \
        "$TMP/table_all.txt" >"$TMP/table.txt"
    if [ ! -s "$TMP/table.txt" ]; then
        echo "FAIL: no prototype found in $OURS/mpcrt/mpi_proto.h" >&2
        exit 1
    fi
    cut -f1 "$TMP/table.txt" >"$TMP/table_names"
    echo "note: $(wc -l <"$TMP/table.txt") functions of the API table compared; not declared by MPICH:" \
        "$(cut -f1 "$TMP/table_all.txt" | grep -vxF -f "$TMP/table_names" | sed 's/^/MPI_/' | tr '\n' ' ')"
fi
awk -F '\t' 'BEGIN { print "probe_fn probe_table_functions[] = {" } { printf "    F(MPI_%s),\n", $1 }
              END { print "};" }' "$TMP/table.txt" >"$TMP/syms_table.inc"

# ---------------------------------------------------------------------------
# Probe 1: values, types and layouts (run-time output)
# ---------------------------------------------------------------------------
{
    cat <<'EOF'
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

/* Name the type of an expression; types that are the same under both headers
 * (e.g. all handles are int) intentionally share a name. */
#define TN(x)                                                                  \
    _Generic((x), int: "int", long: "long", unsigned: "unsigned",              \
             void *: "void*", int *: "int*", char **: "char**",                \
             char ***: "char***", MPI_Status *: "MPI_Status*",                 \
             MPI_File: "MPI_File", MPI_T_enum: "MPI_T_enum",                   \
             MPI_T_cvar_handle: "MPI_T_cvar_handle",                           \
             MPI_T_pvar_handle: "MPI_T_pvar_handle",                           \
             MPI_T_pvar_session: "MPI_T_pvar_session",                         \
             MPI_Comm_copy_attr_function *: "copy_attr_fn*",                   \
             MPI_Comm_delete_attr_function *: "delete_attr_fn*",               \
             MPI_Datarep_conversion_function *: "datarep_conv_fn*",            \
             MPI_Datarep_conversion_function_c *: "datarep_conv_fn_c*",        \
             default: "other")
#define P(x, is_macro) \
    printf("value %-38s macro=%d %12ld %s\n", #x, is_macro, (long)(x), TN(x))
#define S(x) printf("expr  %-38s %ld\n", #x, (long)(x))
#define SAME(a, b) __builtin_types_compatible_p(a, b)
#define FN(f, sig) printf("proto %-38s %d\n", #f, SAME(__typeof__(&f), sig))
#define CB(t, sig) printf("cb    %-38s %d\n", #t, SAME(t *, sig))

int main(void)
{
EOF
    # one P() per name, recording whether the name is a preprocessor macro
    # shellcheck disable=SC2013 # the list is whitespace-separated words, not lines
    for n in $(cat "$TMP/names.txt"); do
        printf '#ifdef %s\n    P(%s, 1);\n#else\n    P(%s, 0);\n#endif\n' "$n" "$n" "$n"
    done
    cat <<'EOF'

    /* typedef sizes, signedness and identity */
    S(sizeof(MPI_Aint)); S((MPI_Aint)-1 < 0); S(SAME(MPI_Aint, long));
    S(sizeof(MPI_Offset)); S((MPI_Offset)-1 < 0); S(SAME(MPI_Offset, long));
    S(sizeof(MPI_Count)); S((MPI_Count)-1 < 0); S(SAME(MPI_Count, long));
    S(sizeof(MPI_Fint)); S((MPI_Fint)-1 < 0); S(SAME(MPI_Fint, int));
    S(SAME(MPI_Comm, int)); S(SAME(MPI_Datatype, int)); S(SAME(MPI_Group, int));
    S(SAME(MPI_Op, int)); S(SAME(MPI_Errhandler, int)); S(SAME(MPI_Info, int));
    S(SAME(MPI_Win, int)); S(SAME(MPI_Request, int)); S(SAME(MPI_Message, int));
    S(SAME(MPI_Session, int));
    S(sizeof(MPI_File)); S(SAME(MPI_File, struct ADIOI_FileD *));
    S(SAME(MPI_T_enum, struct MPIR_T_enum_s *));
    S(SAME(MPI_T_cvar_handle, struct MPIR_T_cvar_handle_s *));
    S(SAME(MPI_T_pvar_handle, struct MPIR_T_pvar_handle_s *));
    S(SAME(MPI_T_pvar_session, struct MPIR_T_pvar_session_s *));
    S(SAME(MPI_T_event_registration, struct MPIR_T_event_registration_s *));
    S(SAME(MPI_T_event_instance, struct MPIR_T_event_instance_s *));
    S(sizeof(MPI_T_cb_safety)); S(sizeof(MPI_T_source_order));

    /* status layouts */
    S(sizeof(MPI_Status)); S(_Alignof(MPI_Status));
    S(offsetof(MPI_Status, count_lo)); S(offsetof(MPI_Status, count_hi_and_cancelled));
    S(offsetof(MPI_Status, MPI_SOURCE)); S(offsetof(MPI_Status, MPI_TAG));
    S(offsetof(MPI_Status, MPI_ERROR)); S(SAME(struct MPI_Status, MPI_Status));
    S(sizeof(MPI_F08_status));
    S(offsetof(MPI_F08_status, count_lo)); S(offsetof(MPI_F08_status, count_hi_and_cancelled));
    S(offsetof(MPI_F08_status, MPI_SOURCE)); S(offsetof(MPI_F08_status, MPI_TAG));
    S(offsetof(MPI_F08_status, MPI_ERROR));

    /* handle conversion macros */
    S(MPI_Comm_c2f(MPI_COMM_WORLD)); S(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)));
    S(MPI_Type_c2f(MPI_DOUBLE)); S(MPI_Type_f2c(0x4c000405)); S(MPI_Group_c2f(MPI_GROUP_EMPTY));
    S(MPI_Group_f2c(0x48000000)); S(MPI_Info_c2f(MPI_INFO_ENV)); S(MPI_Info_f2c(0x1c000000));
    S(MPI_Request_c2f(MPI_REQUEST_NULL)); S(MPI_Request_f2c(0x2c000000)); S(MPI_Op_c2f(MPI_SUM));
    S(MPI_Op_f2c(0x58000003)); S(MPI_Errhandler_c2f(MPI_ERRORS_RETURN));
    S(MPI_Errhandler_f2c(0x54000001)); S(MPI_Win_c2f(MPI_WIN_NULL)); S(MPI_Win_f2c(0x20000000));
    S(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)); S(MPI_Message_f2c(0x6c000000));
    S(MPI_Session_c2f(MPI_SESSION_NULL)); S(MPI_Session_f2c(0x38000000));
    S(PMPI_Comm_c2f(MPI_COMM_WORLD)); S(PMPI_Type_f2c(0x4c00080b));

    /* predefined "dup" callbacks: type only (their address needs linking) */
    S(SAME(__typeof__(MPI_COMM_DUP_FN), MPI_Comm_copy_attr_function *));
    S(SAME(__typeof__(MPI_TYPE_DUP_FN), MPI_Type_copy_attr_function *));
    S(SAME(__typeof__(MPI_WIN_DUP_FN), MPI_Win_copy_attr_function *));
    S(SAME(__typeof__(&MPI_DUP_FN), MPI_Copy_function *));

    /* extern sentinel objects: type only */
    S(SAME(__typeof__(MPI_UNWEIGHTED), int *const));
    S(SAME(__typeof__(MPI_WEIGHTS_EMPTY), int *const));
    S(SAME(__typeof__(MPI_F_STATUS_IGNORE), MPI_Fint *));
    S(SAME(__typeof__(MPI_F_STATUSES_IGNORE), MPI_Fint *));
    S(SAME(__typeof__(MPI_F08_STATUS_IGNORE), MPI_F08_status *));
    S(SAME(__typeof__(MPI_F08_STATUSES_IGNORE), MPI_F08_status *));
    S(SAME(__typeof__(MPI_T_PVAR_ALL_HANDLES), MPI_T_pvar_handle const));

    /* callback typedefs */
    CB(MPI_User_function, void (*)(void *, void *, int *, MPI_Datatype *));
    CB(MPI_User_function_c, void (*)(void *, void *, MPI_Count *, MPI_Datatype *));
    CB(MPI_Comm_copy_attr_function, int (*)(MPI_Comm, int, void *, void *, void *, int *));
    CB(MPI_Comm_delete_attr_function, int (*)(MPI_Comm, int, void *, void *));
    CB(MPI_Type_copy_attr_function, int (*)(MPI_Datatype, int, void *, void *, void *, int *));
    CB(MPI_Type_delete_attr_function, int (*)(MPI_Datatype, int, void *, void *));
    CB(MPI_Win_copy_attr_function, int (*)(MPI_Win, int, void *, void *, void *, int *));
    CB(MPI_Win_delete_attr_function, int (*)(MPI_Win, int, void *, void *));
    CB(MPI_Copy_function, int (*)(MPI_Comm, int, void *, void *, void *, int *));
    CB(MPI_Delete_function, int (*)(MPI_Comm, int, void *, void *));
    CB(MPI_Comm_errhandler_function, void (*)(MPI_Comm *, int *, ...));
    CB(MPI_File_errhandler_function, void (*)(MPI_File *, int *, ...));
    CB(MPI_Win_errhandler_function, void (*)(MPI_Win *, int *, ...));
    CB(MPI_Session_errhandler_function, void (*)(MPI_Session *, int *, ...));
    CB(MPI_Comm_errhandler_fn, void (*)(MPI_Comm *, int *, ...));
    CB(MPI_File_errhandler_fn, void (*)(MPI_File *, int *, ...));
    CB(MPI_Win_errhandler_fn, void (*)(MPI_Win *, int *, ...));
    CB(MPI_Session_errhandler_fn, void (*)(MPI_Session *, int *, ...));
    CB(MPI_Handler_function, void (*)(MPI_Comm *, int *, ...));
    CB(MPI_Grequest_query_function, int (*)(void *, MPI_Status *));
    CB(MPI_Grequest_free_function, int (*)(void *));
    CB(MPI_Grequest_cancel_function, int (*)(void *, int));
    CB(MPI_Datarep_conversion_function, int (*)(void *, MPI_Datatype, int, void *, MPI_Offset, void *));
    CB(MPI_Datarep_conversion_function_c,
       int (*)(void *, MPI_Datatype, MPI_Count, void *, MPI_Offset, void *));
    CB(MPI_Datarep_extent_function, int (*)(MPI_Datatype, MPI_Aint *, void *));
    CB(MPI_T_event_cb_function,
       void (*)(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void *));
    CB(MPI_T_event_free_cb_function, void (*)(MPI_T_event_registration, MPI_T_cb_safety, void *));
    CB(MPI_T_event_dropped_cb_function,
       void (*)(MPI_Count, MPI_T_event_registration, int, MPI_T_cb_safety, void *));

    /* prototypes */
#define BOTH(f, sig) FN(MPI_##f, sig); FN(PMPI_##f, sig)
    BOTH(Init, int (*)(int *, char ***));
    BOTH(Init_thread, int (*)(int *, char ***, int, int *));
    BOTH(Initialized, int (*)(int *));
    BOTH(Finalized, int (*)(int *));
    BOTH(Finalize, int (*)(void));
    BOTH(Query_thread, int (*)(int *));
    BOTH(Is_thread_main, int (*)(int *));
    BOTH(Comm_rank, int (*)(MPI_Comm, int *));
    BOTH(Comm_size, int (*)(MPI_Comm, int *));
    BOTH(Wtime, double (*)(void));
    BOTH(Wtick, double (*)(void));
    BOTH(Abort, int (*)(MPI_Comm, int));
    BOTH(Barrier, int (*)(MPI_Comm));
    BOTH(Get_version, int (*)(int *, int *));
    BOTH(Get_library_version, int (*)(char *, int *));
    BOTH(Get_processor_name, int (*)(char *, int *));
    BOTH(Error_class, int (*)(int, int *));
    BOTH(Error_string, int (*)(int, char *, int *));
EOF
    # every function of the API table that MPICH also declares (see table_prototypes)
    awk -F '\t' '{ printf "    BOTH(%s, %s);\n", $1, $2 }' "$TMP/table.txt"
    cat <<'EOF'
    return 0;
}
EOF
} >"$TMP/values.c"

# ---------------------------------------------------------------------------
# Probe 2: link-level view (symbols referenced; C++ linkage and mangling)
# ---------------------------------------------------------------------------
cat >"$TMP/syms.c" <<'EOF'
#include <mpi.h>

typedef void (*probe_fn)(void);
#define F(f) (probe_fn)(f), (probe_fn)(P##f)
probe_fn probe_functions[] = {
    F(MPI_Init), F(MPI_Init_thread), F(MPI_Initialized), F(MPI_Finalized), F(MPI_Finalize),
    F(MPI_Query_thread), F(MPI_Is_thread_main), F(MPI_Comm_rank), F(MPI_Comm_size),
    F(MPI_Wtime), F(MPI_Wtick), F(MPI_Abort), F(MPI_Barrier), F(MPI_Get_version),
    F(MPI_Get_library_version), F(MPI_Get_processor_name), F(MPI_Error_class),
    F(MPI_Error_string),
    (probe_fn)MPI_DUP_FN, (probe_fn)MPI_COMM_DUP_FN, (probe_fn)MPI_TYPE_DUP_FN,
    (probe_fn)MPI_WIN_DUP_FN,
};
const void *probe_objects[] = {
    &MPI_UNWEIGHTED, &MPI_WEIGHTS_EMPTY, &MPI_F_STATUS_IGNORE, &MPI_F_STATUSES_IGNORE,
    &MPI_F08_STATUS_IGNORE, &MPI_F08_STATUSES_IGNORE, &MPI_T_PVAR_ALL_HANDLES,
};
#include "syms_table.inc"
#ifdef __cplusplus
/* mangled name encodes how C++ sees the ABI types */
void probe_mangle(MPI_Comm, MPI_Datatype, MPI_Aint, MPI_Offset, MPI_Count, MPI_Fint, MPI_File,
                  MPI_Status *, MPI_F08_status *, MPI_T_enum, MPI_T_cvar_handle, MPI_T_pvar_handle,
                  MPI_T_pvar_session, MPI_T_event_registration, MPI_T_event_instance,
                  MPI_T_cb_safety, MPI_T_source_order, MPI_User_function *)
{
}
#endif
EOF

# ---------------------------------------------------------------------------
# Build and run everything against one include dir; output on stdout.
# ---------------------------------------------------------------------------
probe() { # $1 = tag, $2 = include dir
    "$CC" -std=gnu11 -w -I"$2" -o "$TMP/values.$1" "$TMP/values.c" || return 1
    "$TMP/values.$1" || return 1
    "$CC" -std=gnu11 -w -I"$2" -c -o "$TMP/syms.$1.o" "$TMP/syms.c" || return 1
    "$NM" -u "$TMP/syms.$1.o" | awk '{ print "c-undef  " $NF }' | sort
    if [ -n "$HAVE_CXX" ]; then
        cp "$TMP/syms.c" "$TMP/syms.$1.cc"
        "$CXX" -w -DMPICH_SKIP_MPICXX -I"$2" -c -o "$TMP/syms.$1.cxx.o" "$TMP/syms.$1.cc" || return 1
        "$NM" "$TMP/syms.$1.cxx.o" |
            awk '$1 == "U" { print "cxx-undef " $2 } $2 == "T" { print "cxx-def  " $3 }' | sort
    fi
}

HAVE_CXX=
if command -v "$CXX" >/dev/null 2>&1; then HAVE_CXX=yes; fi

status=0

# Our header must also be clean on its own (it is not compared with MPICH here).
printf '#include <mpi.h>\nint probe_main(void) { return MPI_SUCCESS; }\n' >"$TMP/strict.c"
for std in c99 c11; do
    if ! "$CC" -std=$std -Wall -Wextra -Wpedantic -Werror -I"$OURS" -c -o "$TMP/strict.o" "$TMP/strict.c"
    then
        echo "FAIL: $OURS/mpi.h does not compile warning-free with -std=$std" >&2
        status=1
    fi
done
if [ -n "$HAVE_CXX" ]; then
    cp "$TMP/strict.c" "$TMP/strict.cc"
    if ! "$CXX" -Wall -Wextra -Wpedantic -Werror -I"$OURS" -c -o "$TMP/strict.o" "$TMP/strict.cc"; then
        echo "FAIL: $OURS/mpi.h does not compile warning-free as C++" >&2
        status=1
    fi
else
    echo "note: no C++ compiler ($CXX), C++ checks skipped"
fi

if ! probe ours "$OURS" >"$TMP/out.ours"; then
    echo "FAIL: probes do not build/run against $OURS/mpi.h" >&2
    exit 1
fi
if ! probe mpich "$MPICH" >"$TMP/out.mpich"; then
    echo "FAIL: probes do not build/run against $MPICH/mpi.h" >&2
    exit 1
fi

n=$(wc -l <"$TMP/out.mpich")
if diff -u "$TMP/out.mpich" "$TMP/out.ours" >"$TMP/diff"; then
    echo "ok: $n ABI facts identical between $MPICH/mpi.h and $OURS/mpi.h"
else
    echo "FAIL: ABI differences (--- MPICH, +++ ours):"
    cat "$TMP/diff"
    status=1
fi
exit $status
