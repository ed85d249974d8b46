# The MPI API table (functions.def): adds the API layer's sources to MPI_SOURCES and generates, at build
# time, a stub for every function of the table that no file under runtime/mpi defines yet (gen_stubs.cmake).
# Included by runtime/CMakeLists.txt after the layer fragments and before add_library(mpcrt ...).
set(MPCRT_API_DIR ${CMAKE_CURRENT_LIST_DIR})
set(MPCRT_API_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/mpi_api)
get_filename_component(MPCRT_API_MPI_DIR ${MPCRT_API_DIR}/.. ABSOLUTE)

# A new or changed source re-runs the scan (CONFIGURE_DEPENDS: a new file re-runs CMake first).
file(GLOB_RECURSE MPCRT_API_SCANNED CONFIGURE_DEPENDS ${MPCRT_API_MPI_DIR}/*.c)
# The stamp lets the generated files keep their time stamp when their content does not change, so
# editing a source does not recompile the stubs unless the set of defined functions changed.
add_custom_command(
  OUTPUT ${MPCRT_API_GEN_DIR}/stubs.stamp
  BYPRODUCTS ${MPCRT_API_GEN_DIR}/unsupported.c ${MPCRT_API_GEN_DIR}/api_defined.h
  COMMAND ${CMAKE_COMMAND} -DMODE=runtime -DTABLE=${MPCRT_API_DIR}/functions.def
          -DSCAN_DIR=${MPCRT_API_MPI_DIR} -DSIMPLE=${MPCRT_API_DIR}/simple.c -DOUT_DIR=${MPCRT_API_GEN_DIR}
          -P ${MPCRT_API_DIR}/gen_stubs.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${MPCRT_API_GEN_DIR}/stubs.stamp
  DEPENDS ${MPCRT_API_DIR}/functions.def ${MPCRT_API_DIR}/gen_stubs.cmake ${MPCRT_API_SCANNED}
  COMMENT "Generating stubs for the MPI functions not implemented yet"
  VERBATIM)

list(APPEND MPI_SOURCES mpi/api/simple.c mpi/api/unsupported_report.c
  ${MPCRT_API_GEN_DIR}/unsupported.c ${MPCRT_API_GEN_DIR}/api_defined.h ${MPCRT_API_GEN_DIR}/stubs.stamp)
set_source_files_properties(${MPCRT_API_GEN_DIR}/unsupported.c PROPERTIES
  INCLUDE_DIRECTORIES ${MPCRT_API_MPI_DIR})
set_source_files_properties(${MPCRT_API_DIR}/simple.c PROPERTIES
  INCLUDE_DIRECTORIES ${MPCRT_API_GEN_DIR} OBJECT_DEPENDS ${MPCRT_API_GEN_DIR}/api_defined.h)

# Lets tests/unit/mpi_api know that the library carries the whole table.
set_property(GLOBAL PROPERTY MPCRT_API_TABLE ${MPCRT_API_DIR}/functions.def)
