// Vector memory access: contiguous loads/stores, gathers, scatters, ramps
// and broadcasts, on float, int8 and bool buffers.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

TEST(MemoryTest, ContiguousVectorLoadStoreStaysVector) {
  constexpr int kN = 64, kLanes = 16;
  te::Buffer A = Buf("A", {kN}), B = Buf("B", {kN});
  auto f = Func("vscale", {A, B}, Loop("v", kN / kLanes, [&](Expr v) {
                  Expr idx = Vec(v * kLanes, kLanes);
                  return St(B, idx, Ld(A, idx) * Splat(Expr(2.0f), kLanes) + Splat(Expr(1.0f), kLanes));
                }));
  std::vector<float> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) a[i] = 0.5f * i;
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kN; ++i) EXPECT_EQ(b[i], a[i] * 2 + 1);
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("load <16 x float>"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("store <16 x float>"), std::string::npos) << *ir;
}

TEST(MemoryTest, StridedGatherAndScatterTranspose) {
  constexpr int kN = 8;
  te::Buffer A = Buf("A", {kN * kN}), T = Buf("T", {kN * kN}), U = Buf("U", {kN * kN});
  // T[i, :] = A[:, i] (gather); U[:, i] = A[i, :] (scatter).
  auto f = Func("transpose", {A, T, U}, Loop("i", kN, [&](Expr i) {
                  return Seq({St(T, Vec(i * kN, kN), Ld(A, Vec(i, kN, kN))),
                              St(U, Vec(i, kN, kN), Ld(A, Vec(i * kN, kN)))});
                }));
  std::vector<float> a(kN * kN), t(kN * kN), u(kN * kN);
  for (int i = 0; i < kN * kN; ++i) a[i] = static_cast<float>(i);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), t.data(), u.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int r = 0; r < kN; ++r) {
    for (int c = 0; c < kN; ++c) {
      EXPECT_EQ(t[r * kN + c], a[c * kN + r]);
      EXPECT_EQ(u[c * kN + r], a[r * kN + c]);
    }
  }
}

// Stride 2 (a strided conv's input row): one contiguous load of the span
// and a shuffle, no gather.
TEST(MemoryTest, StrideTwoLoadIsASpanLoadAndAShuffle) {
  constexpr int kLanes = 16, kRows = 4;
  te::Buffer A = Buf("A", {kRows * 2 * kLanes}), B = Buf("B", {kRows * kLanes});
  auto f = Func("every_other", {A, B}, Loop("r", kRows, [&](Expr r) {
                  return St(B, Vec(r * kLanes, kLanes), Ld(A, Vec(r * (2 * kLanes) + 1, kLanes, 2)));
                }));
  std::vector<float> a(kRows * 2 * kLanes), b(kRows * kLanes);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i);
  // The last row's span ends at its last lane: the element after it is past A.
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int r = 0; r < kRows; ++r)
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(b[r * kLanes + l], a[r * 2 * kLanes + 1 + 2 * l]);
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("llvm.masked.gather"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("shufflevector"), std::string::npos) << *ir;
}

// A span of odd length (28 lanes of stride 2: 55 elements, a strided
// depthwise conv's input row) is loaded on x86 at a whole-register width
// with the positions past it off: the last row's span ends at the buffer's
// last element, before a PROT_NONE page, and nothing past it is read.
TEST(MemoryTest, AnOddSpanLoadReadsNothingPastItsLastLane) {
  constexpr int kLanes = 28, kRows = 3, kSpan = (kLanes - 1) * 2 + 1;
  constexpr int kElements = (kRows - 1) * 2 * kLanes + kSpan;
  te::Buffer A = Buf("A", {kElements}), B = Buf("B", {kRows * kLanes});
  auto f = Func("odd_span", {A, B}, Loop("r", kRows, [&](Expr r) {
                  return St(B, Vec(r * kLanes, kLanes), Ld(A, Vec(r * (2 * kLanes), kLanes, 2)));
                }));
  GuardedBuffer a(kElements * sizeof(float), GuardedBuffer::Guard::kAfter);
  for (int i = 0; i < kElements; ++i) a.as<float>()[i] = 0.5f * static_cast<float>(i);
  std::vector<float> b(kRows * kLanes, -1);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int r = 0; r < kRows; ++r) {
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(b[r * kLanes + l], a.as<float>()[r * 2 * kLanes + 2 * l]) << r << " " << l;
  }
  const Target host = Target::Host();
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, host);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("llvm.masked.gather"), std::string::npos) << *ir;
  if (host.is_x86() && host.vector_bits >= 256) {
    const int lanes = host.vector_lanes(4);
    const int width = (kSpan + lanes - 1) / lanes * lanes;  // 56 with AVX2, 64 with AVX-512
    EXPECT_NE(ir->find(absl::StrCat("llvm.masked.load.v", width, "f32")), std::string::npos) << *ir;
    EXPECT_EQ(ir->find("<55 x float>"), std::string::npos) << *ir;
  }
}

TEST(MemoryTest, IndirectGatherWithLoadedIndices) {
  constexpr int kLanes = 8;
  te::Buffer A = Buf("A", {16}), Idx = Buf("Idx", {kLanes}, DType::Int32()), B = Buf("B", {kLanes});
  te::Buffer C = Buf("C", {kLanes}), D = Buf("D", {kLanes});
  Expr index = te::MakeCast(DType::Int64().with_lanes(kLanes), Ld(Idx, Vec(0, kLanes)));
  // int64 indices, int32 vector indices, and int32 scalar indices.
  auto f = Func("indirect", {A, Idx, B, C, D},
                Seq({St(B, Vec(0, kLanes), Ld(A, index)),
                     St(C, Vec(0, kLanes), Ld(A, Ld(Idx, Vec(0, kLanes)))),
                     Loop("i", kLanes, [&](Expr i) { return St(D, i, Ld(A, Ld(Idx, i))); })}));
  std::vector<float> a(16), b(kLanes), c(kLanes), d(kLanes);
  for (int i = 0; i < 16; ++i) a[i] = 100.0f + i;
  std::vector<int32_t> idx = {15, 0, 3, 3, 9, 1, 14, 7};
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), idx.data(), b.data(), c.data(), d.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int l = 0; l < kLanes; ++l) {
    EXPECT_EQ(b[l], a[idx[l]]);
    EXPECT_EQ(c[l], a[idx[l]]);
    EXPECT_EQ(d[l], a[idx[l]]);
  }
}

TEST(MemoryTest, BroadcastIndexRampValueAndRampPlusBroadcastIndex) {
  constexpr int kLanes = 8;
  te::Buffer A = Buf("A", {32}), B = Buf("B", {4 * kLanes}), C = Buf("C", {kLanes});
  te::Buffer D = Buf("D", {4 * kLanes});
  auto f = Func("ramps", {A, B, C, D},
                Seq({Loop("i", 4,
                          [&](Expr i) {
                            // B[i*8 + l] = A[i] (one element to all lanes) + l
                            Expr lane = te::MakeCast(DType::Float32().with_lanes(kLanes), Vec(0, kLanes));
                            return St(B, Vec(i * kLanes, kLanes), Ld(A, Splat(i, kLanes)) + lane);
                          }),
                     // C[l] = 5 + 3 l, a ramp as a value.
                     St(C, Vec(0, kLanes), te::MakeCast(DType::Float32().with_lanes(kLanes), Vec(5, kLanes, 3))),
                     Loop("j", 4, [&](Expr j) {
                       // D[j*8 + l] = A[l + 2j]: Ramp + Broadcast is still contiguous.
                       Expr index = Vec(0, kLanes) + Splat(j * 2, kLanes);
                       return St(D, Vec(j * kLanes, kLanes), Ld(A, index));
                     })}));
  std::vector<float> a(32), b(4 * kLanes), c(kLanes), d(4 * kLanes);
  for (int i = 0; i < 32; ++i) a[i] = 10.0f * i;
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), c.data(), d.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < 4; ++i) {
    for (int l = 0; l < kLanes; ++l) {
      EXPECT_EQ(b[i * kLanes + l], a[i] + l);
      EXPECT_EQ(d[i * kLanes + l], a[l + 2 * i]);
    }
  }
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(c[l], 5.0f + 3 * l);
}

TEST(MemoryTest, Int8AndBoolVectors) {
  constexpr int kLanes = 16;
  te::Buffer A = Buf("A", {kLanes}, DType::Int8()), B = Buf("B", {kLanes}, DType::Int8());
  te::Buffer P = Buf("P", {kLanes}, DType::Bool());
  Expr idx = Vec(0, kLanes);
  auto f = Func("narrow", {A, B, P},
                Seq({St(B, idx, Ld(A, idx) + Splat(I8(100), kLanes)),
                     St(P, idx, te::LogicalNot(Ld(P, idx)))}));
  std::vector<int8_t> a(kLanes), b(kLanes);
  std::vector<uint8_t> p(kLanes);
  for (int i = 0; i < kLanes; ++i) {
    a[i] = static_cast<int8_t>(i * 9 - 60);
    p[i] = i % 3 == 0;
  }
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data(), p.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kLanes; ++i) {
    EXPECT_EQ(b[i], static_cast<int8_t>(a[i] + 100)) << "int8 wraps around";
    EXPECT_EQ(p[i], i % 3 == 0 ? 0 : 1) << "bools are stored as 0/1 bytes";
  }
}

TEST(MemoryTest, StoreToUniformIndexKeepsLastLane) {
  constexpr int kLanes = 4;
  te::Buffer A = Buf("A", {kLanes}), B = Buf("B", {2});
  auto f = Func("uniform_store", {A, B}, St(B, Splat(Expr(1), kLanes), Ld(A, Vec(0, kLanes))));
  std::vector<float> a = {1, 2, 3, 4}, b = {0, 0};
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(b[0], 0.0f);
  EXPECT_EQ(b[1], 4.0f);
}

}  // namespace
}  // namespace tuneforge::codegen::testing
