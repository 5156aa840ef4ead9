# Cross-compiles for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu,
# against the arm64 multiarch packages (/usr/lib/aarch64-linux-gnu):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DTUNEFORGE_RUNNER_ONLY=ON
# Programs (protoc, grpc_cpp_plugin) are the build machine's; headers and
# libraries the target's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# Multiarch libraries live under /usr/lib/aarch64-linux-gnu, outside the
# cross root: search both.
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config (gRPC's config finds RE2 with it) reads the target's .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# GCC 12 for aarch64 inlines Abseil's empty hash table and then warns that
# its static sentinel is freed (a false positive: it never is).
set(CMAKE_CXX_FLAGS_INIT "-Wno-free-nonheap-object")
