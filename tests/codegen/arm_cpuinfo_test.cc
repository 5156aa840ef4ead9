// Arm boards as their kernels describe them: the core named from the
// implementer/part numbers, the kernel's features as LLVM's, and the device
// key's ISA (sve where the board has it). Fixtures are /proc/cpuinfo texts
// of real machines, shortened to two cores.
#include "common/codegen/arm_cpuinfo.h"

#include <gtest/gtest.h>

#include "common/codegen/target.h"

namespace tuneforge::codegen {
namespace {

// Raspberry Pi 4 (Cortex-A72, Armv8.0: NEON only).
constexpr char kRaspberryPi4[] = R"(processor	: 0
BogoMIPS	: 108.00
Features	: fp asimd evtstrm crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x0
CPU part	: 0xd08
CPU revision	: 3

processor	: 1
BogoMIPS	: 108.00
Features	: fp asimd evtstrm crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x0
CPU part	: 0xd08
CPU revision	: 3

Hardware	: BCM2835
Model		: Raspberry Pi 4 Model B Rev 1.4
)";

// AWS Graviton3 (Neoverse-V1: SVE, dot product, int8 matrix multiply).
constexpr char kGraviton3[] = R"(processor	: 0
BogoMIPS	: 2100.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x1
CPU part	: 0xd40
CPU revision	: 1

processor	: 1
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
CPU implementer	: 0x41
CPU part	: 0xd40
)";

TEST(ArmCpuInfoTest, ARaspberryPiIsACortexA72WithNeon) {
  ArmCpuInfo info = ParseArmCpuInfo(kRaspberryPi4);
  EXPECT_EQ(info.implementer, 0x41);
  EXPECT_EQ(info.part, 0xd08);
  EXPECT_EQ(info.cores, 2);
  EXPECT_EQ(info.CoreName(), "cortex-a72");
  EXPECT_FALSE(info.has_sve());
  EXPECT_EQ(info.LlvmFeatures(), "+neon");
}

TEST(ArmCpuInfoTest, AGraviton3HasSveDotProductAndInt8MatrixMultiply) {
  ArmCpuInfo info = ParseArmCpuInfo(kGraviton3);
  EXPECT_EQ(info.CoreName(), "neoverse-v1");
  EXPECT_TRUE(info.has_sve());
  EXPECT_EQ(info.LlvmFeatures(), "+neon,+sve,+dotprod,+i8mm,+fullfp16");
  // The device key says SVE where the target has it.
  absl::StatusOr<Target> t = Target::Parse("aarch64-unknown-linux-gnu:cpu=neoverse-v1:features=" +
                                           info.LlvmFeatures() + ":cores=64");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->device_key(), "aarch64-sve-64c");
  absl::StatusOr<Target> pi = Target::Parse("aarch64-unknown-linux-gnu:cpu=cortex-a72:features=+neon:cores=4");
  ASSERT_TRUE(pi.ok());
  EXPECT_EQ(pi->device_key(), "aarch64-neon-4c");
}

TEST(ArmCpuInfoTest, AnUnknownCoreOrAnotherArchitectureNamesNothing) {
  ArmCpuInfo unknown = ParseArmCpuInfo("processor : 0\nFeatures : fp asimd\nCPU implementer : 0x99\nCPU part : 0x123\n");
  EXPECT_EQ(unknown.implementer, 0x99);
  EXPECT_EQ(unknown.CoreName(), "");
  EXPECT_EQ(unknown.LlvmFeatures(), "+neon");
  ArmCpuInfo x86 = ParseArmCpuInfo("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R14\n");
  EXPECT_EQ(x86.implementer, -1);
  EXPECT_EQ(x86.CoreName(), "");
  EXPECT_EQ(ParseArmCpuInfo("").cores, 0);
}

}  // namespace
}  // namespace tuneforge::codegen
