// The worker's kept candidates: found by workload and steps, bounded by
// their objects' bytes, oldest out first.
#include "worker/agent/built_kernel_cache.h"

#include "gtest/gtest.h"

namespace tuneforge::worker {
namespace {

measure::BuiltKernel KernelOfBytes(size_t bytes) {
  measure::BuiltKernel k;
  k.object.symbol = "f";
  k.object.object = std::string(bytes - 1, 'x');  // with the symbol: `bytes`
  k.build_ms = 250;
  return k;
}

TEST(BuiltKernelCacheTest, AKernelIsFoundByItsWorkloadAndSteps) {
  BuiltKernelCache cache(1000);
  const std::vector<schedule::Step> split = {schedule::SplitStep{2, 1, {4}, true}};
  const std::vector<schedule::Step> other = {schedule::SplitStep{2, 1, {8}, true}};
  cache.Add(BuiltKernelCache::KeyOf("w1", split), KernelOfBytes(100));
  ASSERT_NE(cache.Find(BuiltKernelCache::KeyOf("w1", split)), nullptr);
  EXPECT_EQ(cache.Find(BuiltKernelCache::KeyOf("w1", split))->build_ms, 250);
  EXPECT_EQ(cache.Find(BuiltKernelCache::KeyOf("w1", other)), nullptr);
  EXPECT_EQ(cache.Find(BuiltKernelCache::KeyOf("w2", split)), nullptr);
}

TEST(BuiltKernelCacheTest, TheOldestGoFirstWhenTheBytesWouldPassTheBound) {
  BuiltKernelCache cache(1000);
  cache.Add("a", KernelOfBytes(400));
  cache.Add("b", KernelOfBytes(400));
  EXPECT_EQ(cache.bytes(), 800u);
  cache.Add("c", KernelOfBytes(400));  // a goes
  EXPECT_EQ(cache.Find("a"), nullptr);
  EXPECT_NE(cache.Find("b"), nullptr);
  EXPECT_NE(cache.Find("c"), nullptr);
  EXPECT_EQ(cache.bytes(), 800u);
  cache.Add("huge", KernelOfBytes(1001));  // over the whole bound: not kept, nothing evicted
  EXPECT_EQ(cache.Find("huge"), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(BuiltKernelCacheTest, AFailedBuildIsNotKept) {
  BuiltKernelCache cache(1000);
  cache.Add("bad", measure::BuiltKernel::Failed(measure::MeasureErrorKind::kCompileError, "too slow"));
  EXPECT_EQ(cache.Find("bad"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace tuneforge::worker
