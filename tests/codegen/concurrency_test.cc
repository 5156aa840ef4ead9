// The builder compiles candidates on several threads at once, and a runner
// may load and unload kernels while others run.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

// out[i] = in[i] * scale, parallel and vectorized.
LoweredFunc Scale(int id, float scale) {
  te::Buffer In = Buf("In", {64}), Out = Buf("Out", {64});
  return Func("scale_" + std::to_string(id), {In, Out}, Loop("v", 8, [&](Expr v) {
                Expr idx = Vec(v * 8, 8);
                return St(Out, idx, Ld(In, idx) * Splat(Expr(scale), 8));
              }, ForKind::kParallel));
}

TEST(ConcurrencyTest, CompileLoadAndRunOnManyThreadsAtOnce) {
  constexpr int kThreads = 4, kPerThread = 6;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        int id = t * kPerThread + k;
        absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = JitCompile(Scale(id, static_cast<float>(id)));
        if (!kernel.ok()) {
          ++failures;
          continue;
        }
        std::vector<float> in(64, 1.5f), out(64, 0);
        void* args[] = {in.data(), out.data()};
        if ((**kernel)(args) != 0) ++failures;
        for (float x : out) {
          if (x != 1.5f * static_cast<float>(id)) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tuneforge::codegen::testing
