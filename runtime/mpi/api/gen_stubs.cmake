# Build-time generator (cmake -P) for the MPI API table functions.def: finds which functions the sources
# under runtime/mpi define (a line starting `<type> PMPI_<name>(` whose parameter list is followed by `{`)
# and writes, depending on MODE:
#   runtime  OUT_DIR/unsupported.c: a stub for every function of the table that no source defines, which
#              reports MPI_ERR_UNSUPPORTED_OPERATION (MPI_T_ functions return MPI_T_ERR_NOT_SUPPORTED:
#              the tool interface never invokes error handlers, MPI 4.0 section 15.3.10);
#            OUT_DIR/api_defined.h: MPCRT_API_DEFINED_<name> for every function defined outside SIMPLE,
#              so that SIMPLE's fallback definitions step aside.
#   test     OUT_DIR/api_calls.c: a call to every MPI_x and PMPI_x of the table, a compile-time check of
#              each prototype against the table and a table of their addresses (tests/unit/mpi_api);
#            OUT_DIR/api_probe.h: how to call one stubbed function with a communicator argument and one
#              stubbed MPI_T_ function.
# Inputs: MODE, TABLE (functions.def), SCAN_DIR (runtime/mpi), SIMPLE (runtime/mpi/api/simple.c), OUT_DIR.
# Files are rewritten only when their content changes, so unchanged stubs are not recompiled.
cmake_minimum_required(VERSION 3.25)

foreach(var MODE TABLE SCAN_DIR SIMPLE OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gen_stubs.cmake: -D${var}=... is required")
  endif()
endforeach()

# ---- the table: parallel lists api_ret, api_name (without MPI_), api_params, api_macro ----------------
# Square brackets and semicolons would confuse CMake lists: they travel as @LB@, @RB@ and @SC@.
file(READ "${TABLE}" text)
string(REPLACE ";" "@SC@" text "${text}")
string(REPLACE "[" "@LB@" text "${text}")
string(REPLACE "]" "@RB@" text "${text}")
string(REPLACE "\n" ";" lines "${text}")
set(entries "")
set(current "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[ \t]+[^ \t]")
    if(current STREQUAL "")
      message(FATAL_ERROR "${TABLE}: continuation line without an entry: ${line}")
    endif()
    string(STRIP "${line}" line)
    string(APPEND current " ${line}")
    continue()
  endif()
  if(NOT current STREQUAL "")
    list(APPEND entries "${current}")
    set(current "")
  endif()
  if(line MATCHES "^[A-Za-z]")
    string(STRIP "${line}" current)
  endif()
endforeach()
if(NOT current STREQUAL "")
  list(APPEND entries "${current}")
endif()

set(api_ret "")
set(api_name "")
set(api_params "")
set(api_macro "")
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^([A-Za-z_][A-Za-z0-9_]*) MPI_([A-Za-z0-9_]+)\\(([^()]*)\\)(( @[a-z]+)*)$")
    message(FATAL_ERROR "${TABLE}: cannot parse entry: ${entry}")
  endif()
  list(APPEND api_ret "${CMAKE_MATCH_1}")
  list(APPEND api_name "${CMAKE_MATCH_2}")
  # parameters are separated by "," inside the list element (no entry has a parenthesized parameter)
  list(APPEND api_params "${CMAKE_MATCH_3}")
  if(CMAKE_MATCH_4 MATCHES "@macro")
    list(APPEND api_macro 1)
  else()
    list(APPEND api_macro 0)
  endif()
endforeach()
list(LENGTH api_name api_count)

# ---- definitions found in the sources ------------------------------------------------------------------
function(defined_in files out)
  set(names "")
  foreach(f IN LISTS files)
    file(READ "${f}" src)
    string(REPLACE ";" "@SC@" src "\n${src}")
    string(REPLACE "[" "@LB@" src "${src}")
    string(REPLACE "]" "@RB@" src "${src}")
    string(REGEX MATCHALL "\n[A-Za-z_][A-Za-z0-9_ ]*[ *]\\(?PMPI_[A-Za-z0-9_]+\\)?\\([^;{}]*\\)[ \t\r\n]*{"
           defs "${src}")
    foreach(def IN LISTS defs)
      string(REGEX MATCH "PMPI_([A-Za-z0-9_]+)\\)?\\(" unused "${def}")
      list(APPEND names "${CMAKE_MATCH_1}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

get_filename_component(scan_dir "${SCAN_DIR}" REALPATH)
get_filename_component(simple_abs "${SIMPLE}" REALPATH)
file(GLOB_RECURSE sources "${scan_dir}/*.c")
list(REMOVE_ITEM sources "${simple_abs}")
defined_in("${sources}" defined_elsewhere)
defined_in("${simple_abs}" defined_in_simple)

# ---- helpers -------------------------------------------------------------------------------------------
function(restore var text)
  string(REPLACE "@SC@" ";" text "${text}")
  string(REPLACE "@LB@" "[" text "${text}")
  string(REPLACE "@RB@" "]" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# The first parameter passed by value as MPI_Comm (its name), or "" when there is none.
function(comm_param params out)
  string(REPLACE "," ";" plist "${params}")
  foreach(p IN LISTS plist)
    if(p MATCHES "^ *MPI_Comm ([A-Za-z_][A-Za-z0-9_]*) *$")
      set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# Arguments for a call that is compiled (and, for stubs, run): MPI_COMM_WORLD for communicators, else 0.
function(call_args params out)
  set(args "")
  if(NOT params STREQUAL "void")
    string(REPLACE "," ";" plist "${params}")
    foreach(p IN LISTS plist)
      if(p MATCHES "^ *\\.\\.\\. *$")
        continue()
      elseif(p MATCHES "^ *MPI_Comm [A-Za-z_][A-Za-z0-9_]* *$")
        list(APPEND args "MPI_COMM_WORLD")
      else()
        list(APPEND args "0")
      endif()
    endforeach()
  endif()
  list(JOIN args ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")
math(EXPR last "${api_count} - 1")

# ---- MODE=runtime ----------------------------------------------------------------------------------------
if(MODE STREQUAL "runtime")
  set(stubs "")
  set(nstubs 0)
  foreach(i RANGE ${last})
    list(GET api_name ${i} name)
    if(name IN_LIST defined_elsewhere OR name IN_LIST defined_in_simple)
      continue()
    endif()
    list(GET api_ret ${i} ret)
    list(GET api_params ${i} params)
    if(NOT ret STREQUAL "int")
      message(FATAL_ERROR "MPI_${name} returns ${ret}, so it cannot be a stub: define PMPI_${name} under "
                          "runtime/mpi (simple cases go to runtime/mpi/api/simple.c)")
    endif()
    restore(params "${params}")
    if(name MATCHES "^T_")
      set(body "mpcrt_mpi_t_unsupported(\"MPI_${name}\")")
    else()
      comm_param("${params}" comm)
      if(comm STREQUAL "")
        set(comm "MPI_COMM_NULL")
      endif()
      set(body "mpcrt_mpi_unsupported(${comm}, \"MPI_${name}\")")
    endif()
    string(APPEND stubs "\nint PMPI_${name}(${params})\n{\n    return ${body};\n}\n"
                        "MPCRT_PMPI_ALIAS(${name})\n")
    math(EXPR nstubs "${nstubs} + 1")
  endforeach()
  write_if_changed("${OUT_DIR}/unsupported.c"
"/* GENERATED at build time by runtime/mpi/api/gen_stubs.cmake from runtime/mpi/api/functions.def: do not
 * edit. The ${nstubs} functions of the ${api_count} in the table that no file under runtime/mpi defines:
 * each reports MPI_ERR_UNSUPPORTED_OPERATION through the error handler of its communicator (MPI_T_
 * functions return MPI_T_ERR_NOT_SUPPORTED). Defining PMPI_<name> anywhere under runtime/mpi removes
 * its stub at the next build. */
#include \"mpi_internal.h\"

#pragma GCC diagnostic ignored \"-Wunused-parameter\"
${stubs}")

  set(defs "")
  foreach(name IN LISTS defined_elsewhere)
    string(APPEND defs "#define MPCRT_API_DEFINED_${name} 1\n")
  endforeach()
  write_if_changed("${OUT_DIR}/api_defined.h"
"/* GENERATED at build time by runtime/mpi/api/gen_stubs.cmake: the MPI functions defined under runtime/mpi
 * outside api/simple.c, whose fallback definitions in simple.c are therefore left out. */
#ifndef MPCRT_API_DEFINED_H
#define MPCRT_API_DEFINED_H
${defs}#endif
")

# ---- MODE=test -------------------------------------------------------------------------------------------
elseif(MODE STREQUAL "test")
  set(checks "")
  set(calls "")
  set(rows "")
  set(probe "")
  set(probe_t "")
  foreach(i RANGE ${last})
    list(GET api_name ${i} name)
    list(GET api_ret ${i} ret)
    list(GET api_params ${i} params)
    restore(params "${params}")
    call_args("${params}" args)
    set(stub 1)
    if(name IN_LIST defined_elsewhere OR name IN_LIST defined_in_simple)
      set(stub 0)
    endif()
    foreach(p "" "P")
      string(APPEND checks "_Static_assert(SAME(__typeof__(&(${p}MPI_${name})), ${ret} (*)(${params})), "
                           "\"${p}MPI_${name}: prototype differs from functions.def\");\n")
      string(APPEND calls "    (void)(${p}MPI_${name})(${args});\n")
    endforeach()
    string(APPEND rows "    {\"MPI_${name}\", (api_fn)(MPI_${name}), (api_fn)(PMPI_${name}), ${stub}},\n")
    if(stub AND probe STREQUAL "" AND NOT name MATCHES "^T_")
      comm_param("${params}" comm)
      if(NOT comm STREQUAL "")
        set(probe "#define PROBE_NAME \"MPI_${name}\"\n#define PROBE_CALL() (MPI_${name})(${args})\n")
      endif()
    endif()
    if(stub AND probe_t STREQUAL "" AND name MATCHES "^T_")
      set(probe_t "#define PROBE_T_NAME \"MPI_${name}\"\n#define PROBE_T_CALL() (MPI_${name})(${args})\n")
    endif()
  endforeach()
  write_if_changed("${OUT_DIR}/api_calls.c"
"/* GENERATED at build time by runtime/mpi/api/gen_stubs.cmake from functions.def: do not edit.
 * Every MPI_x and PMPI_x of the table, with its prototype checked against the table. */
#include \"api_table.h\"

#define SAME(a, b) __builtin_types_compatible_p(a, b)

${checks}
/* Never run (most functions would end the job): it makes the linker resolve every function. */
void api_call_all(void)
{
${calls}}

const struct api_entry api_table[] = {
${rows}};
const int api_table_size = ${api_count};
")
  if(probe STREQUAL "")
    set(probe "/* every function with a communicator argument is implemented */\n")
  endif()
  if(probe_t STREQUAL "")
    set(probe_t "/* every MPI_T_ function is implemented */\n")
  endif()
  write_if_changed("${OUT_DIR}/api_probe.h"
"/* GENERATED at build time by runtime/mpi/api/gen_stubs.cmake: stubbed functions to call in a test. */
${probe}${probe_t}")
else()
  message(FATAL_ERROR "gen_stubs.cmake: unknown MODE ${MODE}")
endif()
