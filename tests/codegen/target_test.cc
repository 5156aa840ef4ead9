// Target: the host probe, spec parsing (with its errors) and device keys.
#include <string>

#include "common/codegen/target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::codegen {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

TEST(TargetTest, HostProbeDescribesThisMachine) {
  Target host = Target::Host();
  EXPECT_TRUE(host.is_host);
  EXPECT_FALSE(host.triple.empty());
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_GE(host.num_cores, 1);
  EXPECT_GT(host.l1_bytes, 0);
  EXPECT_GT(host.l2_bytes, host.l1_bytes);
  if (host.is_x86()) {
    // The vector width follows the features LLVM detected.
    bool avx512 = host.features.find("+avx512f") != std::string::npos;
    bool avx2 = host.features.find("+avx2") != std::string::npos;
    EXPECT_EQ(host.vector_bits, avx512 ? 512 : avx2 ? 256 : 128) << host.features;
    EXPECT_THAT(host.device_key(), MatchesRegex("x86_64-(avx512|avx2|sse)-[0-9]+c"));
  }
  EXPECT_EQ(host.vector_lanes(4), host.vector_bits / 32);
}

TEST(TargetTest, ParseHostAndItsOptions) {
  absl::StatusOr<Target> t = Target::Parse("host");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->triple, Target::Host().triple);
  EXPECT_TRUE(t->is_host);
  t = Target::Parse("host:cores=3");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->num_cores, 3);
  EXPECT_TRUE(t->is_host);
  EXPECT_EQ(t->vector_bits, Target::Host().vector_bits);
}

TEST(TargetTest, ParseAarch64) {
  absl::StatusOr<Target> t = Target::Parse("aarch64");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->is_aarch64());
  EXPECT_EQ(t->triple, "aarch64-unknown-linux-gnu");
  EXPECT_EQ(t->vector_bits, 128);
  EXPECT_EQ(t->device_key(), "aarch64-neon-1c");
  t = Target::Parse("aarch64-unknown-linux-gnu:cpu=cortex-a72:cores=4");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->cpu, "cortex-a72");
  EXPECT_EQ(t->device_key(), "aarch64-neon-4c");
  EXPECT_EQ(t->is_host, Target::Host().is_aarch64());
}

TEST(TargetTest, ParseX86TriplesDeriveVectorWidthFromCpuAndFeatures) {
  absl::StatusOr<Target> t = Target::Parse("x86_64-pc-linux-gnu:cpu=skylake-avx512:cores=2");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->vector_bits, 512);
  EXPECT_EQ(t->device_key(), "x86_64-avx512-2c");
  t = Target::Parse("x86_64-pc-linux-gnu:cpu=haswell");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->vector_bits, 256);
  EXPECT_EQ(t->device_key(), "x86_64-avx2-1c");
  t = Target::Parse("x86_64-pc-linux-gnu:features=+avx2,+fma");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->cpu, "x86-64");
  EXPECT_EQ(t->vector_bits, 256);
  t = Target::Parse("x86_64-pc-linux-gnu");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->vector_bits, 128);
}

TEST(TargetTest, ToStringRoundTrips) {
  for (const char* spec : {"host", "aarch64:cores=8", "x86_64-pc-linux-gnu:cpu=znver4:cores=16"}) {
    absl::StatusOr<Target> t = Target::Parse(spec);
    ASSERT_TRUE(t.ok()) << t.status();
    absl::StatusOr<Target> again = Target::Parse(t->ToString());
    ASSERT_TRUE(again.ok()) << t->ToString() << ": " << again.status();
    EXPECT_EQ(again->triple, t->triple);
    EXPECT_EQ(again->cpu, t->cpu);
    EXPECT_EQ(again->features, t->features);
    EXPECT_EQ(again->num_cores, t->num_cores);
    EXPECT_EQ(again->vector_bits, t->vector_bits);
    EXPECT_EQ(again->device_key(), t->device_key());
  }
}

TEST(TargetTest, ParseErrorsNameTheProblem) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", "empty target"},
           {":cpu=znver4", "missing triple"},
           {"riscv64-unknown-linux-gnu", "unsupported architecture 'riscv64'"},
           {"x86_64-apple-darwin", "does not produce ELF objects"},
           {"x86_64-pc-linux-gnu:cpu=pentium9000", "unknown CPU 'pentium9000'"},
           {"x86_64-pc-linux-gnu:features=+avx9000", "unknown CPU feature 'avx9000'"},
           {"x86_64-pc-linux-gnu:features=avx2", "must be +NAME or -NAME"},
           {"host:cores=0", "cores must be a positive integer, got '0'"},
           {"host:cores=many", "cores must be a positive integer"},
           {"aarch64:threads=4", "unknown option 'threads=4'"},
       }) {
    absl::StatusOr<Target> t = Target::Parse(c.spec);
    ASSERT_FALSE(t.ok()) << c.spec;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << c.spec;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(c.message)) << c.spec;
  }
}

}  // namespace
}  // namespace tuneforge::codegen
