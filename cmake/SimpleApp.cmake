# simple_app(NAME SOURCES src... [LIBS lib...] [DEFINES def...]): one of the
# papers' applications in apps/NAME/: the static library simple_NAME (its
# header beside it, registered in SIMPLE_APP_LIBS for simple-bench), the
# command simple-NAME from main.c (installed), and, with SIMPLE_BUILD_TESTS,
# tests/test_NAME.c on the usual layouts plus tests/test_NAME_cmd.sh.
function(simple_app name)
  cmake_parse_arguments(APP "" "" "SOURCES;LIBS;DEFINES" ${ARGN})
  set(lib simple_${name})
  add_library(${lib} STATIC ${APP_SOURCES})
  target_link_libraries(${lib} PUBLIC simple::simple ${APP_LIBS})
  target_include_directories(${lib} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  if(APP_DEFINES)
    target_compile_definitions(${lib} PRIVATE ${APP_DEFINES})
  endif()
  target_compile_options(${lib} PRIVATE ${SIMPLE_WARNINGS})
  set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY SIMPLE_APP_LIBS ${lib})

  add_executable(simple-${name} main.c)
  target_link_libraries(simple-${name} PRIVATE ${lib})
  target_compile_options(simple-${name} PRIVATE ${SIMPLE_WARNINGS})
  install(TARGETS simple-${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

  if(SIMPLE_BUILD_TESTS)
    simple_spmd_test(test_${name} tests/test_${name}.c apps LAYOUTS 1x1 1x2 1x4 2x2 3x1-2-3 4x1)
    target_link_libraries(test_${name} PRIVATE ${lib})
    add_test(NAME test_${name}_cmd
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_${name}_cmd.sh ${PROJECT_BINARY_DIR}/bin)
    set_tests_properties(test_${name}_cmd PROPERTIES TIMEOUT 300 LABELS apps)
  endif()
endfunction()
