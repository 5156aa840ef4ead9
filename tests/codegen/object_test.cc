// Objects: compile once, load (many times), run; objects for AArch64 are
// valid ELF for that machine and use NEON.
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/codegen/object_info.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// B[i] = A[i] * 2 + 1 over 64 floats, vectorized by 4 (one NEON register).
LoweredFunc Axpb(const char* name) {
  te::Buffer A = Buf("A", {64}), B = Buf("B", {64});
  return Func(name, {A, B}, Loop("v", 16, [&](Expr v) {
                Expr idx = Vec(v * 4, 4);
                return St(B, idx, Ld(A, idx) * Splat(Expr(2.0f), 4) + Splat(Expr(1.0f), 4));
              }));
}

TEST(ObjectTest, CompileToObjectThenLoadObjectRuns) {
  absl::StatusOr<CompiledObject> object = CompileToObject(Axpb("axpb"), Target::Host());
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->symbol, "axpb");
  EXPECT_EQ(object->triple, Target::Host().triple);
  EXPECT_GT(object->compile_ms, 0);
  absl::StatusOr<ObjectInfo> info = InspectObject(object->object);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->is_elf);
  EXPECT_TRUE(info->is_relocatable);
  EXPECT_THAT(info->defined_functions, Contains("axpb"));

  // The bytes are all a runner needs: load them as another process would.
  CompiledObject copy{object->symbol, std::string(object->object), object->triple, 0};
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = LoadObject(copy);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<float> a(64), b(64);
  std::iota(a.begin(), a.end(), 0.0f);
  void* args[] = {a.data(), b.data()};
  EXPECT_EQ((**kernel)(args), 0);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b[i], a[i] * 2 + 1);
}

TEST(ObjectTest, TwoKernelsWithTheSameSymbolLoadSideBySide) {
  te::Buffer A = Buf("A", {1});
  absl::StatusOr<CompiledObject> one = CompileToObject(Func("k", {A}, St(A, 0, Expr(1.0f))), Target::Host());
  absl::StatusOr<CompiledObject> two = CompileToObject(Func("k", {A}, St(A, 0, Expr(2.0f))), Target::Host());
  ASSERT_TRUE(one.ok() && two.ok());
  absl::StatusOr<std::unique_ptr<LoadedKernel>> k1 = LoadObject(*one), k2 = LoadObject(*two);
  ASSERT_TRUE(k1.ok()) << k1.status();
  ASSERT_TRUE(k2.ok()) << k2.status();
  float x = 0;
  void* args[] = {&x};
  (**k1)(args);
  EXPECT_EQ(x, 1.0f);
  (**k2)(args);
  EXPECT_EQ(x, 2.0f);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // its quarantine keeps freed memory resident
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST(ObjectTest, LoadingAndUnloadingThousandsOfKernelsDoesNotGrowMemory) {
  if (kAddressSanitizer) GTEST_SKIP() << "resident memory is not a leak measure under ASan";
  // A kernel with a parallel loop and a libm call: runtime and process
  // symbols are resolved on every load.
  te::Buffer A = Buf("A", {64}), B = Buf("B", {64});
  LoweredFunc f = Func("churn", {A, B}, Loop("i", 64, [&](Expr i) {
                         return St(B, i, te::MakeCall(te::Intrinsic::kExp, {Ld(A, i)}));
                       }, ForKind::kParallel));
  absl::StatusOr<CompiledObject> object = CompileToObject(f, Target::Host());
  ASSERT_TRUE(object.ok()) << object.status();
  std::vector<float> a(64, 0.5f), b(64);
  void* args[] = {a.data(), b.data()};
  auto load_run_unload = [&](int times) {
    for (int i = 0; i < times; ++i) {
      absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = LoadObject(*object);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      ASSERT_EQ((**kernel)(args), 0);
    }
  };
  load_run_unload(200);  // warm up: allocator pools, JIT session
  int64_t before = ResidentBytes();
  load_run_unload(2000);
  int64_t growth = ResidentBytes() - before;
  std::printf("[ memory ] resident growth over 2000 load/run/unload cycles: %lld KiB\n",
              static_cast<long long>(growth / 1024));
  EXPECT_FLOAT_EQ(b[0], std::exp(0.5f));
  // A leak of even one 4 KiB page per kernel would be 8 MB.
  EXPECT_LT(growth, 4 << 20) << "resident memory grew by " << growth << " bytes over 2000 kernels";
}

TEST(ObjectTest, Aarch64ObjectIsElfForAarch64AndDefinesTheKernel) {
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> object = CompileToObject(Axpb("axpb_arm"), *arm);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->triple, "aarch64-unknown-linux-gnu");
  absl::StatusOr<ObjectInfo> info = InspectObject(object->object);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->is_elf);
  EXPECT_TRUE(info->is_relocatable);
  EXPECT_EQ(info->elf_machine, 183);  // EM_AARCH64
  EXPECT_EQ(info->arch, "aarch64");
  EXPECT_THAT(info->format, HasSubstr("aarch64"));
  EXPECT_THAT(info->defined_functions, Contains("axpb_arm"));
}

TEST(ObjectTest, Aarch64AssemblyOfVectorCodeUsesNeon) {
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  te::Buffer A = Buf("A", {64}), B = Buf("B", {64});
  LoweredFunc f = Func("fma_arm", {A, B}, Loop("v", 16, [&](Expr v) {
                         Expr idx = Vec(v * 4, 4);
                         return St(B, idx, Ld(A, idx) * Ld(A, idx) + Ld(B, idx));
                       }));
  absl::StatusOr<std::string> assembly = EmitAssembly(f, *arm);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  // a * a + b on four floats: one fused multiply-add on NEON .4s registers.
  EXPECT_THAT(*assembly, ::testing::ContainsRegex("fmla\\s+v[0-9]+\\.4s")) << *assembly;
  EXPECT_THAT(*assembly, HasSubstr("fma_arm:"));
}

TEST(ObjectTest, HostAssemblyOfAvx512TargetUsesZmmRegisters) {
  absl::StatusOr<Target> skx = Target::Parse("x86_64-pc-linux-gnu:cpu=skylake-avx512");
  ASSERT_TRUE(skx.ok()) << skx.status();
  te::Buffer A = Buf("A", {64}), B = Buf("B", {64});
  LoweredFunc f = Func("wide", {A, B}, Loop("v", 4, [&](Expr v) {
                         Expr idx = Vec(v * 16, 16);
                         return St(B, idx, Ld(A, idx) * Ld(A, idx) + Ld(B, idx));
                       }));
  absl::StatusOr<std::string> assembly = EmitAssembly(f, *skx);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  // 16 floats stay one 512-bit register (not two ymm halves), and the
  // multiply-add is fused (the `contract` flag).
  EXPECT_THAT(*assembly, ::testing::ContainsRegex("vfmadd[0-9]+ps\\s+.*%zmm")) << *assembly;
}

}  // namespace
}  // namespace tuneforge::codegen::testing
