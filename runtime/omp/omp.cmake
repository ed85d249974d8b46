# The OpenMP layer's part of libmpcrt.so (included by runtime/CMakeLists.txt): sources, the symbol
# version script that gives the GOMP/OMP entry points libgomp's version nodes, and the libgomp.so.1 name.
set(OMP_SOURCES
  omp/core/init.c omp/core/env.c omp/core/wait.c omp/core/team.c omp/core/barrier.c omp/core/work.c
  omp/core/loop.c omp/core/ordered.c omp/core/lock.c omp/core/task.c omp/core/taskq.c omp/core/depend.c omp/core/taskloop.c
  omp/core/taskred.c omp/core/cancel.c omp/core/target.c omp/core/affinity.c
  omp/gomp/parallel.c omp/gomp/loop.c omp/gomp/loop_ull.c omp/gomp/sync.c omp/gomp/task.c omp/gomp/target.c
  omp/api/icv.c omp/api/lock.c omp/api/lock_compat.c omp/api/time.c omp/api/device.c omp/api/affinity.c omp/api/alloc.c omp/api/fortran.c)

set(MPCRT_OMP_VERSION_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/omp/libgomp.map)
list(APPEND MPCRT_EXTRA_LINK_OPTIONS "-Wl,--version-script=${MPCRT_OMP_VERSION_SCRIPT}")

# Runs once the mpcrt target exists (the fragment is included before add_library).
function(mpcrt_omp_finish)
  set_property(TARGET mpcrt APPEND PROPERTY LINK_DEPENDS ${MPCRT_OMP_VERSION_SCRIPT})
  # LD_LIBRARY_PATH=<build>/lib ./a.out makes a gcc -fopenmp program run on mpcrt; lib/mpcrt/gomp/libgomp.so
  # lets `-lgomp` (added by gcc -fopenmp when linking) resolve to libmpcrt.so (used by mpcc).
  add_custom_command(TARGET mpcrt POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_SONAME_FILE_NAME:mpcrt>
      ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libgomp.so.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/mpcrt/gomp
    COMMAND ${CMAKE_COMMAND} -E create_symlink ../../$<TARGET_LINKER_FILE_NAME:mpcrt>
      ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/mpcrt/gomp/libgomp.so
    VERBATIM)
  # Deferred too: after install(TARGETS mpcrt) has created the library directory.
  install(CODE "
    set(libdir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    file(CREATE_LINK libmpcrt.so.0 \"\${libdir}/libgomp.so.1\" SYMBOLIC)
    file(MAKE_DIRECTORY \"\${libdir}/mpcrt/gomp\")
    file(CREATE_LINK ../../libmpcrt.so \"\${libdir}/mpcrt/gomp/libgomp.so\" SYMBOLIC)
  ")
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL mpcrt_omp_finish)

install(FILES ${PROJECT_SOURCE_DIR}/include/omp.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
