// The hand-lowered tiled matmul: correct, compiled fast enough for search,
// and quick. Compile time and speed are printed for the report; only
// correctness and a generous compile-time bound are asserted (the machines
// running the tests are shared).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "common/runtime/parallel.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"
#include "tests/codegen/matmul_kernel.h"

namespace tuneforge::codegen::testing {
namespace {

// CPU time of this thread: on a shared machine a better figure than wall
// time for work that runs on one thread.
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<float> RandomMatrix(int64_t elements, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> m(elements);
  for (float& x : m) x = dist(rng);
  return m;
}

TEST(MatmulTest, TiledParallelVectorizedMatmulIsCorrect) {
  MatmulTiling t;
  LoweredFunc f = TiledMatmul(t);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = JitCompile(f);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<float> a = RandomMatrix(t.m * t.k, 1), b = RandomMatrix(t.k * t.n, 2);
  std::vector<float> c(t.m * t.n, -7);
  void* args[] = {a.data(), b.data(), c.data()};
  ASSERT_EQ((**kernel)(args), 0);
  for (int64_t i = 0; i < t.m; ++i) {
    for (int64_t j = 0; j < t.n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < t.k; ++k) want += static_cast<double>(a[i * t.k + k]) * b[k * t.n + j];
      ASSERT_NEAR(c[i * t.n + j], want, 1e-3) << "C[" << i << ", " << j << "]";
    }
  }
  // Speed, for the record: wall time on the whole pool, and CPU time of
  // one thread (what the code generator controls).
  std::vector<double> wall_ms, cpu_ms;
  for (int rep = 0; rep < 10; ++rep) {
    auto start = std::chrono::steady_clock::now();
    (**kernel)(args);
    wall_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  int threads = runtime::NumThreads();
  runtime::SetNumThreads(1);
  for (int rep = 0; rep < 10; ++rep) {
    double start = ThreadCpuMs();
    (**kernel)(args);
    cpu_ms.push_back(ThreadCpuMs() - start);
  }
  runtime::SetNumThreads(threads);
  double flop = 2.0 * t.m * t.n * t.k;
  std::printf("[ matmul ] %lldx%lldx%lld: %.1f GFLOP/s on %d threads (median wall), "
              "%.1f GFLOP/s on 1 thread (best CPU time)\n",
              static_cast<long long>(t.m), static_cast<long long>(t.n), static_cast<long long>(t.k),
              flop / Median(wall_ms) / 1e6, threads,
              flop / *std::min_element(cpu_ms.begin(), cpu_ms.end()) / 1e6);
}

TEST(MatmulTest, CompileTimeOfTiledMatmul) {
  // ~300 statements (the size the target is set for) and a bigger one.
  for (int64_t k_unroll : {int64_t{10}, int64_t{16}}) {
    MatmulTiling t;
    t.k = 480;
    t.k_unroll = k_unroll;
    LoweredFunc f = TiledMatmul(t);
    std::vector<double> ms, cpu;
    for (int rep = 0; rep < 9; ++rep) {
      double start = ThreadCpuMs();
      absl::StatusOr<CompiledObject> object = CompileToObject(f, Target::Host());
      ASSERT_TRUE(object.ok()) << object.status();
      cpu.push_back(ThreadCpuMs() - start);
      ms.push_back(object->compile_ms);
    }
    std::printf("[ compile ] tiled matmul, %lld statements: median %.1f ms wall (min %.1f, max %.1f), "
                "median %.1f ms CPU\n",
                static_cast<long long>(CountStatements(f.body)), Median(ms),
                *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
                Median(cpu));
    // The target is 50 ms; the bound leaves room for a loaded shared machine.
    EXPECT_LT(Median(ms), 500.0);
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
