// The search's hardware parameters from a worker's device key: the ISA
// gives the vector width whether or not the key names the CPU model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "search/search_task.h"

namespace tuneforge::search {
namespace {

TEST(HardwareParamsTest, TheIsaGivesTheVectorWidthWithOrWithoutAModel) {
  struct Case {
    const char* key;
    int lanes, cores;
  };
  for (const Case& c : {Case{"x86_64-avx512-2c", 16, 2}, Case{"x86_64-avx512-epyc9r14-2c", 16, 2},
                        Case{"x86_64-avx2-i78700k-6c", 8, 6}, Case{"aarch64-neon-cortexa72-4c", 4, 4},
                        Case{"aarch64-neon-2c", 4, 2}}) {
    absl::StatusOr<HardwareParams> hw = HardwareParamsFromDeviceKey(c.key);
    ASSERT_TRUE(hw.ok()) << c.key << ": " << hw.status();
    EXPECT_EQ(hw->vector_lanes, c.lanes) << c.key;
    EXPECT_EQ(hw->num_cores, c.cores) << c.key;
    EXPECT_FALSE(hw->gpu) << c.key;
  }
  absl::StatusOr<HardwareParams> gpu = HardwareParamsFromDeviceKey("cuda-sm90-h100");
  ASSERT_TRUE(gpu.ok());
  EXPECT_TRUE(gpu->gpu);
  absl::StatusOr<HardwareParams> custom = HardwareParamsFromDeviceKey("e2e-cpu");
  ASSERT_FALSE(custom.ok());
  EXPECT_THAT(custom.status().message(), ::testing::HasSubstr("is not ARCH-ISA-Nc"));
}

}  // namespace
}  // namespace tuneforge::search
