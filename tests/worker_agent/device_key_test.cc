// Device keys carry the CPU model, so two CPUs with the same ISA and core
// count no longer share records and bests; the key an older build gave a
// device is derived back from today's.
#include "worker/agent/device_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "worker/agent/worker_agent.h"

namespace tuneforge::worker {
namespace {

TEST(DeviceKeyTest, ModelNamesAreShortAndSanitised) {
  EXPECT_EQ(ModelKeyPart("AMD EPYC 9R14 96-Core Processor"), "epyc9r14");
  EXPECT_EQ(ModelKeyPart("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"), "xeonplatinum8375c");
  EXPECT_EQ(ModelKeyPart("Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz"), "i78700k");
  EXPECT_EQ(ModelKeyPart("AMD Ryzen 9 5950X 16-Core Processor"), "ryzen95950x");
  EXPECT_EQ(ModelKeyPart("cortex-a72"), "cortexa72");
  EXPECT_EQ(ModelKeyPart("  "), "");
  EXPECT_EQ(ModelKeyPart("Processor @ 3GHz"), "");
  EXPECT_LE(ModelKeyPart("Some Extremely Long Model Name Beyond Reason 123456789").size(), 24u);
  EXPECT_EQ(ModelKeyPart("x\xff-y;z/../"), "xyz");  // nothing but [a-z0-9] in a key
}

TEST(DeviceKeyTest, TheModelIsInTheKeyAndTheOldKeyIsDerivedBack) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse("x86_64-pc-linux-gnu:cpu=znver4:cores=2");
  ASSERT_TRUE(target.ok()) << target.status();
  const std::string old_key = target->device_key();
  const std::string key = DeviceKeyWithModel(*target, "AMD EPYC 9R14 96-Core Processor");
  EXPECT_EQ(key, absl::StrReplaceAll(old_key, {{"-2c", "-epyc9r14-2c"}}));
  EXPECT_EQ(LegacyDeviceKey(key), old_key);
  EXPECT_NE(DeviceKeyWithModel(*target, "AMD EPYC 7763 64-Core Processor"), key);
  EXPECT_EQ(DeviceKeyWithModel(*target, ""), old_key);  // no model known: the old form
  EXPECT_EQ(LegacyDeviceKey(old_key), std::nullopt);
  EXPECT_EQ(LegacyDeviceKey("test-device"), std::nullopt);
  EXPECT_EQ(LegacyDeviceKey("a-b-c-xc"), std::nullopt);
}

// An Arm board's key names its core; under qemu-user /proc/cpuinfo is the
// x86 machine's, whose model is not the emulated board's.
TEST(DeviceKeyTest, AnArmKeyNamesTheCoreNotTheEmulatingMachine) {
  constexpr char kX86CpuInfo[] = "processor\t: 0\nmodel name\t: AMD EPYC 9R14 96-Core Processor\n";
  absl::StatusOr<codegen::Target> pi =
      codegen::Target::Parse("aarch64-unknown-linux-gnu:cpu=cortex-a72:features=+neon:cores=4");
  ASSERT_TRUE(pi.ok()) << pi.status();
  EXPECT_EQ(CpuModelName(*pi, kX86CpuInfo), "cortex-a72");
  EXPECT_EQ(DeviceKeyWithModel(*pi, CpuModelName(*pi, kX86CpuInfo)), "aarch64-neon-cortexa72-4c");
  absl::StatusOr<codegen::Target> emulated =
      codegen::Target::Parse("aarch64-unknown-linux-gnu:cpu=generic:features=+neon:cores=2");
  ASSERT_TRUE(emulated.ok()) << emulated.status();
  EXPECT_EQ(CpuModelName(*emulated, kX86CpuInfo), "");
  EXPECT_EQ(DeviceKeyWithModel(*emulated, CpuModelName(*emulated, kX86CpuInfo)), "aarch64-neon-2c");
  absl::StatusOr<codegen::Target> x86 = codegen::Target::Parse("x86_64-pc-linux-gnu:cpu=znver4:cores=2");
  ASSERT_TRUE(x86.ok()) << x86.status();
  EXPECT_EQ(CpuModelName(*x86, kX86CpuInfo), "AMD EPYC 9R14 96-Core Processor");
}

TEST(DeviceKeyTest, ThisMachinesKeyNamesItsModel) {
  const std::string key = HostDeviceKey();
  EXPECT_EQ(ProbeDevice("", false).device_key(), key);
  const std::vector<std::string> parts = absl::StrSplit(key, '-');
  if (ModelKeyPart(HostCpuModelName(codegen::Target::Host())).empty()) GTEST_SKIP() << "no CPU model known";
  ASSERT_EQ(parts.size(), 4u) << key;
  EXPECT_EQ(LegacyDeviceKey(key), codegen::Target::Host().device_key());
}

}  // namespace
}  // namespace tuneforge::worker
