// Select must not perform the loads of the arm not taken: padding code reads
// A[i-1] only where i >= 1. The buffers here touch a PROT_NONE page, so a
// load of the wrong element crashes the test instead of passing silently.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using Guard = GuardedBuffer::Guard;
constexpr int kSelectElements = 32;  // elements of A
constexpr int kLanes = 8;

void Fill(float* a, int n) {
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>(i + 1);
}

// Conditions compare with values read at run time (buffer `Lim`), so that
// LLVM cannot fold them away and delete an unguarded load as dead code:
// the tests must fail when the guard is missing.
te::Buffer Limits() { return Buf("Lim", {2}, DType::Int64()); }
int64_t kLimits[2] = {1, kSelectElements};  // Lim[0] = 1, Lim[1] = kSelectElements

// Every test runs at -O0 and -O3. At -O3 on AVX-512 machines LLVM may turn
// an unguarded select of a load into a fault-suppressing masked load, which
// would hide a missing guard; at -O0 a missing guard always faults.
class SelectTest : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(OptLevels, SelectTest, ::testing::Values(0, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat("O", info.param);
                         });

TEST_P(SelectTest, ScalarArmNotTakenDoesNotLoadBeforeTheBuffer) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kBefore);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  auto f = Func("pad_left", {A, B, Lim}, Loop("i", kSelectElements, [&](Expr i) {
                  return St(B, i, te::MakeSelect(i >= Ld(Lim, 0), Ld(A, i - 1), Expr(0.0f)));
                }));
  std::vector<float> b(kSelectElements, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(b[0], 0.0f);
  for (int i = 1; i < kSelectElements; ++i) EXPECT_EQ(b[i], a.as<float>()[i - 1]);
}

TEST_P(SelectTest, ScalarArmNotTakenDoesNotLoadPastTheBuffer) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kAfter);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements + 5}), Lim = Limits();
  // The false arm loads too: both arms are guarded by the branch.
  auto f = Func("pad_right", {A, B, Lim}, Loop("i", kSelectElements + 5, [&](Expr i) {
                  return St(B, i, te::MakeSelect(i >= Ld(Lim, 1), Ld(A, Expr(0)) * 0.0f, Ld(A, i)));
                }));
  std::vector<float> b(kSelectElements + 5, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kSelectElements; ++i) EXPECT_EQ(b[i], a.as<float>()[i]);
  for (int i = kSelectElements; i < kSelectElements + 5; ++i) EXPECT_EQ(b[i], 0.0f);
}

TEST_P(SelectTest, VectorContiguousLoadIsMaskedPerLane) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kBefore);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  auto f = Func("vpad_left", {A, B, Lim}, Loop("v", kSelectElements / kLanes, [&](Expr v) {
                  Expr lanes = Vec(v * kLanes, kLanes);
                  Expr shifted = Vec(v * kLanes - 1, kLanes);
                  return St(B, lanes, te::MakeSelect(lanes >= Splat(Ld(Lim, 0), kLanes), Ld(A, shifted),
                                                     Splat(Expr(0.0f), kLanes)));
                }));
  std::vector<float> b(kSelectElements, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(b[0], 0.0f);
  for (int i = 1; i < kSelectElements; ++i) EXPECT_EQ(b[i], a.as<float>()[i - 1]);
  // The load stays a vector load (masked), not a per-lane branch.
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host(), {.opt_level = GetParam()});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("llvm.masked.load"), std::string::npos) << *ir;
}

// A read that stays inside its buffer for every value of the loops around it
// (a padded conv's interior rows) is a plain load and a blend: no mask, no
// branch (VectorContiguousLoadIsMaskedPerLane: one that can leave it keeps
// its mask).
TEST_P(SelectTest, AReadInsideItsBufferOnEveryIterationNeedsNoMask) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kBefore);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  constexpr int kBlocks = kSelectElements / kLanes - 1;  // v * 8 + 4 + 7 <= 27 for v <= 2
  auto inside = Func("inside", {A, B, Lim}, Loop("v", kBlocks, [&](Expr v) {
                       Expr lanes = Vec(v * kLanes, kLanes);
                       return St(B, lanes, te::MakeSelect(lanes >= Splat(Ld(Lim, 0), kLanes),
                                                          Ld(A, Vec(v * kLanes + 4, kLanes)),
                                                          Splat(Expr(0.0f), kLanes)));
                     }));
  std::vector<float> b(kSelectElements, -1);
  absl::StatusOr<int32_t> rc = RunKernel(inside, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(b[0], 0.0f);
  for (int i = 1; i < kBlocks * kLanes; ++i) EXPECT_EQ(b[i], a.as<float>()[i + 4]) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(inside, Target::Host(), {.opt_level = GetParam()});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("llvm.masked.load"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("masked.scalar"), std::string::npos) << *ir;
}

// Under a condition for all lanes a load keeps its branch even inside its
// buffer: LLVM merges the branches of one test and folds the loads into the
// FMAs' broadcasts, which a select of the loaded value would keep apart.
TEST(SelectBranchTest, AConditionForAllLanesKeepsItsBranchAroundAReadInsideTheBuffer) {
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  auto f = Func("row_test", {A, B, Lim}, Loop("i", kSelectElements - 1, [&](Expr i) {
                  return St(B, i, te::MakeSelect(i >= Ld(Lim, 0), Ld(A, i + 1), Expr(0.0f)));
                }));
  std::vector<float> a(kSelectElements), b(kSelectElements, -1);
  Fill(a.data(), kSelectElements);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = 0});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(b[0], 0.0f);
  for (int i = 1; i < kSelectElements - 1; ++i) EXPECT_EQ(b[i], a[i + 1]) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host(), {.opt_level = 0});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("select.true"), std::string::npos) << *ir;
}

// B[v * kLanes + l] = A[v * step + l * stride] where that is inside A (the
// page after A is guarded), else -5; run at the test's level and checked.
lower::LoweredFunc RunStridedReadUnderASelect(const char* name, int step, int stride, int opt_level) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kAfter);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  auto f = Func(name, {A, B, Lim}, Loop("v", kSelectElements / kLanes, [&](Expr v) {
                  Expr strided = Vec(v * step, kLanes, stride);
                  return St(B, Vec(v * kLanes, kLanes),
                            te::MakeSelect(strided < Splat(Ld(Lim, 1), kLanes), Ld(A, strided),
                                           Splat(Expr(-5.0f), kLanes)));
                }));
  std::vector<float> b(kSelectElements, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = opt_level});
  EXPECT_TRUE(rc.ok()) << rc.status();
  for (int v = 0; v < kSelectElements / kLanes; ++v) {
    for (int l = 0; l < kLanes; ++l) {
      int i = v * step + stride * l;
      EXPECT_EQ(b[v * kLanes + l], i < kSelectElements ? a.as<float>()[i] : -5.0f) << v << " " << l;
    }
  }
  return f;
}

TEST_P(SelectTest, VectorGatherIsMaskedPerLane) {
  // Lanes read A[2i]; the upper half of the lanes are past the buffer.
  RunStridedReadUnderASelect("vgather", /*step=*/2 * kLanes, /*stride=*/2, GetParam());
}

// A small stride is one masked load of the span and a shuffle: the lanes
// past the buffer (guarded) and the elements between lanes are not read.
TEST_P(SelectTest, StrideThreeLoadIsOneMaskedSpanLoad) {
  lower::LoweredFunc f = RunStridedReadUnderASelect("vstride3", /*step=*/2, /*stride=*/3, GetParam());
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host(), {.opt_level = GetParam()});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("llvm.masked.gather"), std::string::npos) << *ir;
  // (8 - 1) * 3 + 1 = 22 elements; on x86 loaded as whole registers (24 with AVX2, 32 with AVX-512).
  const Target host = Target::Host();
  int width = 22;
  if (host.is_x86() && host.vector_bits >= 256) width = (22 + host.vector_lanes(4) - 1) / host.vector_lanes(4) * host.vector_lanes(4);
  EXPECT_NE(ir->find(absl::StrCat("llvm.masked.load.v", width, "f32")), std::string::npos) << *ir;
}

// A masked row wider than four registers (a 56-lane vector across a stride-2
// input row, its border test per lane) is loaded a register of lanes at a
// time: as one masked load of a 112-float span, instruction selection took
// seconds. The lanes past the buffer are still not read.
TEST_P(SelectTest, AWideMaskedStridedRowIsLoadedInRegisterParts) {
  constexpr int kWide = 56, kElements = 96;
  GuardedBuffer a(kElements * sizeof(float), Guard::kAfter);
  Fill(a.as<float>(), kElements);
  te::Buffer A = Buf("A", {kElements}), B = Buf("B", {kWide}), Lim = Buf("Lim", {1}, DType::Int64());
  auto f = Func("wide_row", {A, B, Lim}, [&] {
    Expr strided = Vec(Expr(0), kWide, 2);
    return St(B, Vec(Expr(0), kWide),
              te::MakeSelect(strided < Splat(Ld(Lim, 0), kWide), Ld(A, strided), Splat(Expr(-5.0f), kWide)));
  }());
  int64_t limit[1] = {kElements};
  std::vector<float> b(kWide, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), limit}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int l = 0; l < kWide; ++l) EXPECT_EQ(b[l], 2 * l < kElements ? a.as<float>()[2 * l] : -5.0f) << l;
  const Target host = Target::Host();
  if (!host.is_x86() || host.vector_bits < 256) return;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, host, {.opt_level = GetParam()});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("llvm.masked.load.v112f32"), std::string::npos) << *ir;
  const int part_span = 2 * host.vector_lanes(4);  // (lanes - 1) * 2 + 1, loaded as whole registers
  EXPECT_NE(ir->find(absl::StrCat("llvm.masked.load.v", part_span, "f32")), std::string::npos) << *ir;
}

// A wide stride stays a gather; under a mask its unselected lanes read
// element 0, never the guarded page past the buffer.
TEST_P(SelectTest, WideStrideGatherUnderAMaskReadsOnlyInsideTheBuffer) {
  RunStridedReadUnderASelect("vstride7", /*step=*/1, /*stride=*/7, GetParam());
}

TEST_P(SelectTest, NestedVectorSelectsCombineMasks) {
  GuardedBuffer a(kSelectElements * sizeof(float), Guard::kBefore);
  Fill(a.as<float>(), kSelectElements);
  te::Buffer A = Buf("A", {kSelectElements}), B = Buf("B", {kSelectElements}), Lim = Limits();
  // Inner select reads A[i-2] where i >= 2, inside an outer one with i >= 1.
  auto f = Func("nested", {A, B, Lim}, Loop("v", kSelectElements / kLanes, [&](Expr v) {
                  Expr i = Vec(v * kLanes, kLanes);
                  Expr one = Splat(Ld(Lim, 0), kLanes);
                  Expr zero = Splat(Expr(0.0f), kLanes);
                  Expr inner = te::MakeSelect(i >= one + one, Ld(A, Vec(v * kLanes - 2, kLanes)), zero);
                  Expr outer = te::MakeSelect(i >= one, inner + Ld(A, Vec(v * kLanes - 1, kLanes)), zero);
                  return St(B, i, outer);
                }));
  std::vector<float> b(kSelectElements, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  const float* x = a.as<float>();
  EXPECT_EQ(b[0], 0.0f);
  EXPECT_EQ(b[1], x[0]);
  for (int i = 2; i < kSelectElements; ++i) EXPECT_EQ(b[i], x[i - 2] + x[i - 1]) << i;
}

TEST_P(SelectTest, ScalarLoadInsideMaskedVectorArmIsSkippedWhenNoLaneIsSelected) {
  GuardedBuffer a(4 * sizeof(float), Guard::kBefore);
  Fill(a.as<float>(), 4);
  te::Buffer A = Buf("A", {4}), B = Buf("B", {4 * kLanes}), Lim = Limits();
  auto f = Func("splat_load", {A, B, Lim}, Loop("i", 4, [&](Expr i) {
                  Expr cond = Splat(i >= Ld(Lim, 0), kLanes);
                  return St(B, Vec(i * kLanes, kLanes),
                            te::MakeSelect(cond, Splat(Ld(A, i - 1), kLanes), Splat(Expr(0.0f), kLanes)));
                }));
  std::vector<float> b(4 * kLanes, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), kLimits}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < 4; ++i) {
    for (int l = 0; l < kLanes; ++l) {
      EXPECT_EQ(b[i * kLanes + l], i == 0 ? 0.0f : a.as<float>()[i - 1]);
    }
  }
}

TEST_P(SelectTest, IntegerDivisionByZeroInArmNotTakenDoesNotTrap) {
  te::Buffer A = Buf("A", {kLanes}, DType::Int32()), D = Buf("D", {kLanes}, DType::Int32());
  te::Buffer S = Buf("S", {kLanes}, DType::Int32()), V = Buf("V", {kLanes}, DType::Int32());
  Expr zero = I32(0);
  auto f = Func("safe_div", {A, D, S, V},
                Seq({Loop("i", kLanes,
                          [&](Expr i) {
                            return St(S, i, te::MakeSelect(NE(Ld(D, i), zero), Ld(A, i) / Ld(D, i), zero));
                          }),
                     St(V, Vec(0, kLanes),
                        te::MakeSelect(NE(Ld(D, Vec(0, kLanes)), Splat(zero, kLanes)),
                                       Ld(A, Vec(0, kLanes)) / Ld(D, Vec(0, kLanes)),
                                       Splat(zero, kLanes)))}));
  std::vector<int32_t> a = {10, 20, 30, 40, 50, 60, 70, 80}, d = {3, 0, -4, 0, 7, 0, 1, 0};
  std::vector<int32_t> s(kLanes), v(kLanes);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), d.data(), s.data(), v.data()}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kLanes; ++i) {
    int32_t want = d[i] != 0 ? a[i] / d[i] : 0;
    EXPECT_EQ(s[i], want) << i;
    EXPECT_EQ(v[i], want) << i;
  }
}

TEST_P(SelectTest, SelectWithoutLoadsInArms) {
  te::Buffer A = Buf("A", {kLanes}), B = Buf("B", {kLanes}), C = Buf("C", {kLanes});
  auto f = Func("relu", {A, B, C},
                Seq({Loop("i", kLanes,
                          [&](Expr i) {
                            Expr x = Ld(A, i);
                            return St(B, i, te::MakeSelect(x > 0.0f, x * 2.0f, Expr(0.5f)));
                          }),
                     St(C, Vec(0, kLanes), te::MakeSelect(Ld(A, Vec(0, kLanes)) > 0.0f, Splat(Expr(1.0f), kLanes),
                                                          Splat(Expr(-1.0f), kLanes)))}));
  std::vector<float> a = {-2, -1, 0, 1, 2, 3, -4, 5}, b(kLanes), c(kLanes);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), c.data()}, {.opt_level = GetParam()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kLanes; ++i) {
    EXPECT_EQ(b[i], a[i] > 0 ? a[i] * 2 : 0.5f);
    EXPECT_EQ(c[i], a[i] > 0 ? 1.0f : -1.0f);
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
