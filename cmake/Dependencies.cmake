# All dependencies come from Debian 12 packages (deploy/setup.sh installs them).
# Each find below says why it is done that way where CMake's default fails.

find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# A board's runner-only build needs nothing more (TUNEFORGE_RUNNER_ONLY).
if(TUNEFORGE_RUNNER_ONLY)
  return()
endif()
find_package(SQLite3 REQUIRED)
find_package(GTest CONFIG REQUIRED)
find_package(benchmark CONFIG REQUIRED)
# Debian's libonnx-dev: onnx_proto (onnx/onnx_pb.h, built with ONNX_ML=1).
find_package(ONNX CONFIG REQUIRED)

# LLVM: pin one version; several can be installed side by side.
set(TUNEFORGE_LLVM_VERSION 19.1)  # Debian llvm-19-dev
find_package(LLVM ${TUNEFORGE_LLVM_VERSION} CONFIG REQUIRED
             PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
# Not `llvm-config --cxxflags` whole: it would force -std=c++17 -fno-exceptions.
add_library(tf_llvm INTERFACE)
target_include_directories(tf_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(tf_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(tf_llvm INTERFACE LLVM)
target_link_directories(tf_llvm INTERFACE ${LLVM_LIBRARY_DIRS})
# LLD's ELF linker as a library (Debian liblld-19-dev): kernels for
# runner-only workers are linked into shared objects the board's runner
# loads with dlopen, with no linker or LLVM on the board.
find_library(TF_LLD_ELF lldELF PATHS ${LLVM_LIBRARY_DIRS} NO_DEFAULT_PATH)
find_library(TF_LLD_COMMON lldCommon PATHS ${LLVM_LIBRARY_DIRS} NO_DEFAULT_PATH)
if(NOT TF_LLD_ELF OR NOT TF_LLD_COMMON OR NOT EXISTS ${LLVM_INCLUDE_DIRS}/lld/Common/Driver.h)
  message(FATAL_ERROR "LLD 19 (liblld-19-dev) not found under ${LLVM_LIBRARY_DIRS}: run deploy/setup.sh, "
                      "or apt-get install liblld-19-dev")
endif()
add_library(tf_lld INTERFACE)
target_link_libraries(tf_lld INTERFACE ${TF_LLD_ELF} ${TF_LLD_COMMON} tf_llvm z zstd)

# CUDA (optional): NVRTC turns generated CUDA C into PTX without a GPU. Where
# the toolkit is missing the project builds without GPU support and says so.
if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
add_library(tf_cuda INTERFACE)
if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc)
  message(STATUS "CUDA ${CUDAToolkit_VERSION}: GPU code generation with NVRTC")
  target_link_libraries(tf_cuda INTERFACE CUDA::nvrtc)
  target_compile_definitions(tf_cuda INTERFACE TUNEFORGE_HAS_NVRTC=1)
else()
  message(STATUS "CUDA toolkit not found: building without GPU support")
endif()

# XGBoost 1.7 ships no usable CMake config with only libxgboost-dev installed.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
find_library(XGBOOST_LIBRARY xgboost REQUIRED)

# Benchmark peers (bench/ only).
find_library(OPENBLAS_LIBRARY REQUIRED NAMES openblas PATHS /usr/lib/x86_64-linux-gnu/openblas-pthread)
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas)
find_package(dnnl CONFIG REQUIRED)
