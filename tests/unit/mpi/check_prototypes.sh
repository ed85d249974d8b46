#!/bin/sh
# check_prototypes.sh -- every function our <mpi.h> declares must have MPICH's signature.
#
# Usage: check_prototypes.sh <mpcrt-include-dir>
#
# For each MPI_x / PMPI_x declared in our header, MPICH's declaration (from mpi_proto.h) is appended to a
# file that includes our header; the C compiler rejects any difference ("conflicting types"), parameter
# names aside. tests/abi/check_mpich_abi.sh covers constants and layouts; this covers the growing list of
# prototypes without having to list them. Exit: 0 ok, 1 mismatch, 77 MPICH header absent.
set -u
OURS=$1
MPICH=${MPICH_INCLUDE_DIR:-/usr/include/x86_64-linux-gnu/mpich}
CC=${CC:-cc}
if [ ! -f "$MPICH/mpi_proto.h" ]; then
    echo "SKIP: $MPICH/mpi_proto.h not found (apt-get install libmpich-dev)"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpcrt-proto.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

# Names of the functions we declare (lines that start a declaration: a return type, then the name).
grep -oE '^(int|double|MPI_Aint) P?MPI_[A-Za-z0-9_]+\(' "$OURS/mpi.h" | sed -E 's/^[A-Za-z_]+ //; s/\($//' |
    sort -u >"$TMP/names"

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
    if [ -z "$decl" ]; then
        echo "FAIL: $name is declared in our mpi.h but not in MPICH's"
        missing=1
        continue
    fi
    echo "$decl" >>"$TMP/probe.c"
done <"$TMP/names"

if ! "$CC" -std=gnu11 -Wall -Werror -I"$OURS" -c -o "$TMP/probe.o" "$TMP/probe.c"; then
    echo "FAIL: some prototypes differ from MPICH's (see the errors above)"
    exit 1
fi
[ $missing -eq 0 ] || exit 1
echo "ok: $(wc -l <"$TMP/names") prototypes match MPICH's"
