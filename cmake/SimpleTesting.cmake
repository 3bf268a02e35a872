# Helpers to register SPMD test programs, for tests/ and apps/*/.
# Every SPMD test program runs under several node x thread layouts through
# simplerun; each (program, layout) pair is one CTest test.

# Layouts, written NODESxTHREADS (per-node counts joined by '-'): those of
# the node library, and those of everything over the whole job (odd node
# counts, nodes of different sizes). 1x2 is the one with a core per thread
# on a 2-core machine: there waits spin instead of sleeping, the timing
# under which a thread is likeliest to run a call ahead of the others.
set(SIMPLE_NODE_LAYOUTS 1x1 1x2 1x4 2x2 3x1-2-3 1x8)
set(SIMPLE_JOB_LAYOUTS 1x1 1x2 1x4 2x2 3x1-2-3 4x1 5x2)

# SIMPLE_TEST_LAYOUTS (a list, empty: all): registers each SPMD test only
# under the layouts it names, and under its first layout when it names none
# of them, so that every program still runs. The sanitizer builds use it:
# a sanitized job runs 2-10 times slower, and the layouts between 1x1 and
# 3x1-2-3 find few errors that these do not.
set(SIMPLE_TEST_LAYOUTS "" CACHE STRING "Register SPMD tests only under these layouts (empty: all)")

# simple_test_layouts(OUT l1 l2 ...): the layouts of l1 l2 ... to register.
function(simple_test_layouts out)
  set(kept ${ARGN})
  if(SIMPLE_TEST_LAYOUTS AND ARGN)
    set(kept "")
    foreach(layout ${ARGN})
      if(layout IN_LIST SIMPLE_TEST_LAYOUTS)
        list(APPEND kept ${layout})
      endif()
    endforeach()
    if(NOT kept)
      list(GET ARGN 0 kept)
    endif()
  endif()
  set(${out} ${kept} PARENT_SCOPE)
endfunction()

function(simple_layout_args layout out)
  string(REPLACE "x" ";" parts ${layout})
  list(GET parts 0 nodes)
  list(GET parts 1 threads)
  string(REPLACE "-" "," threads ${threads})
  set(${out} -N ${nodes} -t ${threads} PARENT_SCOPE)
endfunction()

# simple_spmd_test(NAME SOURCE LABEL [LAYOUTS l1 l2 ...])
function(simple_spmd_test name source label)
  cmake_parse_arguments(T "" "" "LAYOUTS" ${ARGN})
  if(NOT T_LAYOUTS)
    set(T_LAYOUTS ${SIMPLE_NODE_LAYOUTS})
  endif()
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE simple::simple m)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${SIMPLE_WARNINGS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  # The test harness (tests/harness.h) is reachable from every folder.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  simple_test_layouts(T_LAYOUTS ${T_LAYOUTS})
  foreach(layout ${T_LAYOUTS})
    simple_layout_args(${layout} args)
    add_test(NAME ${name}.${layout} COMMAND ${SIMPLE_LAUNCHER} ${args} $<TARGET_FILE:${name}>)
    set_tests_properties(${name}.${layout} PROPERTIES TIMEOUT 300 LABELS "${label}")
  endforeach()
endfunction()
