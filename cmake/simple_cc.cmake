# simple-cc, the compiler wrapper (like mpicc) for programs of simple and
# for unmodified BSPlib programs (<bsp.h> -> include/bsp/bsp.h).
# Two copies of one template: build/bin/simple-cc points into the source and
# build trees; the installed one finds its prefix from its own location, so
# a staged or relocated install works too.
# A library built with sanitizers needs its programs built with them too
# (the sanitizer's runtime must come first): simple-cc adds the same flags.
set(SIMPLE_CC_FLAGS "")
if(SIMPLE_SANITIZE)
  set(SIMPLE_CC_FLAGS "-fsanitize=${SIMPLE_SANITIZE} -fno-omit-frame-pointer")
endif()
set(SIMPLE_CC_MODE build)
configure_file(${PROJECT_SOURCE_DIR}/tools/simple-cc.in ${PROJECT_BINARY_DIR}/bin/simple-cc @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)
set(SIMPLE_CC_MODE install)
configure_file(${PROJECT_SOURCE_DIR}/tools/simple-cc.in
               ${PROJECT_BINARY_DIR}/simple-cc.install/simple-cc @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/simple-cc.install/simple-cc
        DESTINATION ${CMAKE_INSTALL_BINDIR})
