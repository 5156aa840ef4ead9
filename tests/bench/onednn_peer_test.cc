// oneDNN as the bench's peer: its direct conv everywhere, its Winograd (the
// peer of tuneforge's Winograd forms) where oneDNN has one, AVX-512 on x86.
#include "bench/peers/onednn.h"

#include <gtest/gtest.h>

namespace tuneforge::bench {
namespace {

TEST(OneDnnPeerTest, TimesTheDirectConvAndTheWinogradConvWhereOneDnnHasIt) {
  const ConvShape shape{1, 64, 14, 14, 64, 3, 3, 1, 1};
  EXPECT_GT(TimeOneDnnConv2d(shape, 1), 0);
#if !defined(__x86_64__)
  GTEST_SKIP() << "which Winograd oneDNN has is known here for x86-64 only";
#else
  const double winograd = TimeOneDnnWinogradConv2d(shape, 1);
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    EXPECT_GT(winograd, 0) << "oneDNN 2.x has an AVX-512 Winograd conv for a 3x3 stride-1 conv";
  } else {
    EXPECT_EQ(winograd, 0) << "no Winograd here: the peer reports none rather than a time";
  }
#endif
}

}  // namespace
}  // namespace tuneforge::bench
