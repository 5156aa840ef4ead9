// Scratch memory for kernels' large temporaries (common/runtime/scratch.cc):
// aligned, null when it cannot be had, and kept between calls, so that a
// kernel run again does not fault its temporaries' pages in again.
#include <sys/resource.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/codegen/compiler.h"
#include "common/runtime/parallel.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

TEST(ScratchTest, BlocksAreAlignedAndAFreedOneServesTheNextRequestOfItsSize) {
  for (int64_t bytes : {int64_t{1}, int64_t{100}, int64_t{1} << 20}) {
    void* p = tuneforge_alloc(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
    std::memset(p, 1, static_cast<size_t>(bytes));  // all of it is usable
    tuneforge_free(p);
    EXPECT_EQ(tuneforge_alloc(bytes), p) << bytes;  // the kept block again
    tuneforge_free(p);
  }
  // A block of another size is not handed out for this one.
  void* small = tuneforge_alloc(4096);
  tuneforge_free(small);
  void* large = tuneforge_alloc(8192);
  EXPECT_NE(large, small);
  tuneforge_free(large);
}

TEST(ScratchTest, AnImpossibleRequestIsNullNotACrash) {
  EXPECT_EQ(tuneforge_alloc(INT64_MAX), nullptr);
  void* p = tuneforge_alloc(-5);  // as for 1 byte
  ASSERT_NE(p, nullptr);
  tuneforge_free(p);
  tuneforge_free(nullptr);
}

int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A kernel that writes a 4 MiB temporary whole (1,024 pages) in each call:
// after the first call, twenty more fault in far fewer pages than one call
// needs.
TEST(ScratchTest, AKernelRunAgainReusesItsTemporaryWithoutFaultingItIn) {
  constexpr int64_t kElements = int64_t{1} << 20;
  te::Buffer Out = Buf("Out", {1}), T = Buf("T", {kElements}, DType::Float32(), "local");
  LoweredFunc f = Func("scratch", {Out}, lower::MakeAllocate(T, Seq({
      Loop("k", kElements, [&](Expr k) { return St(T, k, Expr(1.0f)); }),
      St(Out, 0, Ld(T, 0) + Ld(T, kElements - 1))})));
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = JitCompile(f);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<float> out(1);
  void* args[] = {out.data()};
  ASSERT_EQ((**kernel)(args), 0);
  const int64_t before = MinorFaults();
  for (int i = 0; i < 20; ++i) ASSERT_EQ((**kernel)(args), 0);
  EXPECT_LT(MinorFaults() - before, 256);
  EXPECT_EQ(out[0], 2.0f);
}

}  // namespace
}  // namespace tuneforge::codegen::testing
