#include "tests/search/policy/cuda_emulator.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace tuneforge::search::testing {
namespace {

// CUDA's built-ins in C++. `__shared__` arrays become function statics: one
// per kernel, which every thread of the (one running) block sees.
constexpr char kPrelude[] = R"(#include <barrier>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <math.h>
struct tf_dim3 { long long x = 0, y = 0, z = 0; };
thread_local tf_dim3 threadIdx, blockIdx;
std::barrier<>* tf_block_barrier = nullptr;
inline void __syncthreads() { tf_block_barrier->arrive_and_wait(); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(n)
#define __shared__ static
)";

// Launches the kernel: blocks in turn, a thread per CUDA thread.
constexpr char kLauncher[] = R"(
template <typename... P>
int tf_emulate(void (*kernel)(P...), void** a, const long long* grid, const long long* block) {
  const long long threads = block[0] * block[1] * block[2];
  for (long long bz = 0; bz < grid[2]; ++bz)
    for (long long by = 0; by < grid[1]; ++by)
      for (long long bx = 0; bx < grid[0]; ++bx) {
        std::barrier<> barrier(threads);
        tf_block_barrier = &barrier;
        std::vector<std::thread> pool;
        for (long long t = 0; t < threads; ++t)
          pool.emplace_back([=] {
            blockIdx = {bx, by, bz};
            threadIdx = {t % block[0], (t / block[0]) % block[1], t / (block[0] * block[1])};
            tf_call_kernel(kernel, a);
          });
        for (std::thread& th : pool) th.join();
      }
  return 0;
}
)";

}  // namespace

absl::Status EmulateCudaModule(const codegen::CudaModule& module, const std::vector<void*>& args) {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  fs::path dir = fs::temp_directory_path() / absl::StrCat("tf-cuda-emu-", getpid(), "-", counter++);
  fs::create_directories(dir);
  // A launcher per kernel; every parameter is a pointer, each void* is cast
  // to the parameter's type, read off the kernel's declaration.
  std::string source = absl::StrCat(
      kPrelude, "#include <thread>\n#include <utility>\n#include <vector>\n", module.source,
      "\ntemplate <typename... P, size_t... I>\n"
      "void tf_call_with(void (*f)(P...), void** a, std::index_sequence<I...>) "
      "{ f(static_cast<P>(a[I])...); }\n"
      "template <typename... P>\nvoid tf_call_kernel(void (*f)(P...), void** a) "
      "{ tf_call_with(f, a, std::index_sequence_for<P...>{}); }\n",
      kLauncher);
  for (const codegen::CudaKernel& k : module.kernels)
    absl::StrAppend(&source, "extern \"C\" int tf_launch_", k.name,
                    "(void** a, const long long* g, const long long* b) { return tf_emulate(", k.name,
                    ", a, g, b); }\n");
  const fs::path cc = dir / "kernel.cc", so = dir / "kernel.so", log = dir / "log.txt";
  std::ofstream(cc) << source;
  std::string cmd = absl::StrCat("c++ -std=c++20 -O1 -w -shared -fPIC -pthread -o ", so.string(), " ",
                                 cc.string(), " > ", log.string(), " 2>&1");
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    return absl::InternalError(absl::StrCat("the host compiler refused the kernels:\n", text, "\n", source));
  }
  void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  fs::remove_all(dir);
  if (!lib) return absl::InternalError(absl::StrCat("dlopen: ", dlerror()));
  std::vector<void*> a = args;
  std::vector<std::vector<char>> temporaries;
  for (const codegen::CudaTemporary& t : module.temporaries) {
    temporaries.emplace_back(t.bytes());
    a.push_back(temporaries.back().data());
  }
  using Launch = int (*)(void**, const long long*, const long long*);
  for (const codegen::CudaKernel& k : module.kernels) {
    auto launch = reinterpret_cast<Launch>(dlsym(lib, absl::StrCat("tf_launch_", k.name).c_str()));
    if (!launch) {
      dlclose(lib);
      return absl::InternalError(absl::StrCat("no launcher for kernel ", k.name));
    }
    const long long grid[3] = {k.grid[0], k.grid[1], k.grid[2]};
    const long long block[3] = {k.block[0], k.block[1], k.block[2]};
    launch(a.data(), grid, block);
  }
  dlclose(lib);
  return absl::OkStatus();
}

}  // namespace tuneforge::search::testing
