#!/bin/sh
# check_prototypes.sh -- the functions the datatype engine defines are declared by our <mpi.h> with
# MPICH's signatures.
#
# Usage: check_prototypes.sh <mpcrt-include-dir> <runtime/mpi/datatype dir>
#
# For each PMPI_x defined under the datatype directory (and its MPI_x alias), our headers must declare it,
# and MPICH's declaration (from its mpi_proto.h), appended to a file that includes our header, must compile:
# the C compiler rejects any difference ("conflicting types"), parameter names aside.
# Exit: 0 ok, 1 mismatch or missing declaration, 77 MPICH header absent.
set -u
OURS=$1
SOURCES=$2
MPICH=${MPICH_INCLUDE_DIR:-/usr/include/x86_64-linux-gnu/mpich}
CC=${CC:-cc}
if [ ! -f "$MPICH/mpi_proto.h" ]; then
    echo "SKIP: $MPICH/mpi_proto.h not found (apt-get install libmpich-dev)"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpcrt-proto.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

# Functions of MPI 4.0 that MPICH 4.0.2's header lacks (checked against runtime/mpi/api/functions.def only).
NOT_IN_MPICH="MPI_Status_set_elements_c"

# Names of the functions the engine defines, MPI_ and PMPI_.
grep -ohE '^(int|double|MPI_Aint) PMPI_[A-Za-z0-9_]+\(' "$SOURCES"/*.c | sed -E 's/^[A-Za-z_]+ P//; s/\($//' |
    sort -u >"$TMP/mpi_names"
sed 's/^/P/' "$TMP/mpi_names" | cat - "$TMP/mpi_names" | sort -u >"$TMP/names"
missing_decl=0
while read -r name; do
    if ! cat "$OURS/mpi.h" "$OURS"/mpcrt/*.h 2>/dev/null | grep -qE "(^|[^A-Za-z0-9_])$name\("; then
        echo "FAIL: $name is defined by the engine but not declared in $OURS/mpi.h"
        missing_decl=1
    fi
done <"$TMP/names"

# MPICH's declarations, one per line.
awk '
    /^(int|double|MPI_Aint) P?MPI_[A-Za-z0-9_]+\(/ { decl = ""; collecting = 1 }
    collecting { decl = decl " " $0 }
    collecting && /;/ {
        collecting = 0
        name = decl; sub(/^ *[A-Za-z_]+ /, "", name); sub(/\(.*/, "", name)
        print name "\t" decl
    }
' "$MPICH/mpi_proto.h" >"$TMP/mpich"

{
    echo '#include <mpi.h>'
    echo '#define MPICH_API_PUBLIC'
    echo '#define MPICH_ATTR_POINTER_WITH_TYPE_TAG(buffer, type)'
} >"$TMP/probe.c"
missing=0
while read -r name; do
    decl=$(awk -F '\t' -v n="$name" '$1 == n { print $2; exit }' "$TMP/mpich")
    case " $NOT_IN_MPICH " in
    *" ${name#P} "*) continue ;; # MPI 4.0 has it, MPICH 4.0.2 does not: our header's prototype stands
    esac
    if [ -z "$decl" ]; then
        echo "FAIL: $name is defined by the engine but MPICH does not declare it"
        missing=1
        continue
    fi
    echo "$decl" >>"$TMP/probe.c"
done <"$TMP/names"

if ! "$CC" -std=gnu11 -Wall -Werror -I"$OURS" -c -o "$TMP/probe.o" "$TMP/probe.c"; then
    echo "FAIL: some prototypes differ from MPICH's (see the errors above)"
    exit 1
fi
[ $missing -eq 0 ] && [ $missing_decl -eq 0 ] || exit 1
echo "ok: $(wc -l <"$TMP/names") prototypes of the datatype engine match MPICH's"
