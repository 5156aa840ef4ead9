# The aarch64 board bundle's binaries (the runner-only worker and runner),
# cross-built from this tree into build/aarch64 with Debian's
# g++-aarch64-linux-gnu against the arm64 multiarch packages, both of which
# deploy/setup.sh installs on x86_64. deploy/bundle.sh --arch aarch64 packs
# them; the tests run that bundle under qemu-aarch64. Where either is
# missing the rest builds and this says why.
option(TUNEFORGE_CROSS_AARCH64 "Cross-build the aarch64 bundle's worker and runner into build/aarch64" ON)
if(NOT TUNEFORGE_CROSS_AARCH64 OR NOT CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
  return()
endif()
find_program(TF_AARCH64_CXX aarch64-linux-gnu-g++)
if(NOT TF_AARCH64_CXX OR NOT EXISTS /usr/lib/aarch64-linux-gnu/libgrpc++.so)
  message(STATUS "aarch64 bundle: not cross-built (needs g++-aarch64-linux-gnu and the arm64 packages "
                 "libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64: run deploy/setup.sh)")
  return()
endif()
message(STATUS "aarch64 bundle: cross-built into ${CMAKE_BINARY_DIR}/aarch64")

include(ExternalProject)
ExternalProject_Add(tuneforge-aarch64
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/aarch64
  PREFIX ${CMAKE_BINARY_DIR}/aarch64-ep
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
             -DTUNEFORGE_RUNNER_ONLY=ON
             -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             -DTUNEFORGE_WERROR=${TUNEFORGE_WERROR}
  BUILD_ALWAYS ON  # the inner build knows what changed
  INSTALL_COMMAND "")
