#include "common/te/ndarray.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::te {
namespace {

using ::testing::HasSubstr;

NDArray Make(DType dtype, std::vector<int64_t> shape) {
  absl::StatusOr<NDArray> a = NDArray::Empty(dtype, std::move(shape));
  EXPECT_TRUE(a.ok()) << a.status();
  return *std::move(a);
}

TEST(NDArrayTest, EmptyIsZeroFilledAligned) {
  NDArray a = Make(DType::Float32(), {3, 5});
  EXPECT_EQ(a.num_elements(), 15);
  EXPECT_EQ(a.nbytes(), 60);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(a.GetDouble(i), 0.0);
  NDArray b = Make(DType::Int8(), {7});
  EXPECT_EQ(b.nbytes(), 7);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
}

// Large tensors are their own 2 MiB-aligned mappings (huge pages where the
// kernel allows), whatever was allocated and freed before them: a reused
// buffer must still start zeroed and stay usable after its neighbour dies.
TEST(NDArrayTest, LargeTensorsAreHugeAlignedFreshMappings) {
  constexpr uintptr_t kHuge = 2 << 20;
  for (int round = 0; round < 3; ++round) {
    NDArray a = Make(DType::Float32(), {1024, 1024});
    NDArray b = Make(DType::Float32(), {1024, 1024 + 1});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kHuge, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHuge, 0u);
    for (int64_t i : {int64_t{0}, a.num_elements() / 2, a.num_elements() - 1}) EXPECT_EQ(a.GetDouble(i), 0.0);
    EXPECT_EQ(b.GetDouble(b.num_elements() - 1), 0.0);
    a.Fill(3.0);
    b.FillRandom(round);
    { NDArray gone = Make(DType::Float32(), {1024, 1024}); }
    EXPECT_EQ(a.GetDouble(a.num_elements() - 1), 3.0);
  }
}

TEST(NDArrayTest, RejectsBadShapesAndTypes) {
  auto neg = NDArray::Empty(DType::Float32(), {2, -1});
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(), HasSubstr("dimension 1 is negative"));
  auto vec = NDArray::Empty(DType::Float32().with_lanes(8), {4});
  ASSERT_FALSE(vec.ok());
  EXPECT_THAT(vec.status().message(), HasSubstr("use the element type float32"));
  auto huge = NDArray::Empty(DType::Float64(), {int64_t{1} << 40, int64_t{1} << 40});
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("too many elements"));
}

TEST(NDArrayTest, ElementAccessConvertsLikeC) {
  NDArray i8 = Make(DType::Int8(), {2});
  i8.SetInt(0, 130);      // wraps
  i8.SetDouble(1, -2.9);  // truncates toward zero
  EXPECT_EQ(i8.GetInt(0), -126);
  EXPECT_EQ(i8.GetInt(1), -2);
  NDArray b = Make(DType::Bool(), {2});
  b.SetDouble(0, 0.5);
  b.SetInt(1, 0);
  EXPECT_EQ(b.GetInt(0), 1);
  EXPECT_EQ(b.GetDouble(1), 0.0);
  NDArray f = Make(DType::Float32(), {1});
  f.SetDouble(0, 0.1);
  EXPECT_EQ(f.GetDouble(0), static_cast<double>(0.1f));
}

TEST(NDArrayTest, FlatIndexRoundTrips) {
  NDArray a = Make(DType::Float32(), {2, 3, 4});
  std::vector<int64_t> idx = {1, 2, 3};
  EXPECT_EQ(a.FlatIndex(idx), 1 * 12 + 2 * 4 + 3);
  EXPECT_EQ(a.Unflatten(23), idx);
  EXPECT_EQ(a.Unflatten(5), (std::vector<int64_t>{0, 1, 1}));
}

TEST(NDArrayTest, RandomFillIsDeterministicAndInRange) {
  NDArray a = Make(DType::Float32(), {1000});
  NDArray b = Make(DType::Float32(), {1000});
  NDArray c = Make(DType::Float32(), {1000});
  a.FillRandom(42);
  b.FillRandom(42);
  c.FillRandom(43);
  EXPECT_EQ(a.ContentHash(), b.ContentHash());
  EXPECT_NE(a.ContentHash(), c.ContentHash());
  double lo = 1, hi = -1, sum = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double v = a.GetDouble(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // spread over the whole range
  EXPECT_GT(hi, 0.9);
  EXPECT_NEAR(sum / 1000, 0.0, 0.1);
  // A fixed value pins the generator: every machine must produce it.
  EXPECT_EQ(a.GetDouble(0), b.GetDouble(0));
  NDArray pinned = Make(DType::Int32(), {4});
  pinned.FillRandom(7);
  NDArray pinned_again = Make(DType::Int32(), {4});
  pinned_again.FillRandom(7);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(pinned.GetInt(i), pinned_again.GetInt(i));
}

TEST(NDArrayTest, RandomFillGoldenValues) {
  // SplitMix64 from seed 0 is a published sequence; its first output is
  // 0xe220a8397b1dcdaf. Our float mapping keeps the top 24 bits.
  NDArray f = Make(DType::Float64(), {1});
  f.FillRandom(0);
  EXPECT_EQ(f.GetDouble(0), static_cast<double>(0xe220a8397b1dcdafull >> 40) * 0x1p-23 - 1.0);
  NDArray i = Make(DType::Int64(), {1});
  i.FillRandom(0);
  EXPECT_EQ(i.GetInt(0), static_cast<int64_t>((0xe220a8397b1dcdafull >> 32) % 9) - 4);
}

TEST(NDArrayTest, RandomIntsAndBoolsAreSmall) {
  NDArray a = Make(DType::Int32(), {500});
  a.FillRandom(1);
  bool seen_min = false, seen_max = false;
  for (int64_t i = 0; i < 500; ++i) {
    int64_t v = a.GetInt(i);
    EXPECT_GE(v, -4);
    EXPECT_LE(v, 4);
    seen_min |= v == -4;
    seen_max |= v == 4;
  }
  EXPECT_TRUE(seen_min && seen_max);
  NDArray b = Make(DType::Bool(), {200});
  b.FillRandom(1);
  int64_t ones = 0;
  for (int64_t i = 0; i < 200; ++i) ones += b.GetInt(i);
  EXPECT_GT(ones, 50);
  EXPECT_LT(ones, 150);
}

TEST(NDArrayTest, CopyIsDeep) {
  NDArray a = Make(DType::Float32(), {4});
  a.FillRandom(3);
  absl::StatusOr<NDArray> b = a.Copy();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a.ContentHash(), b->ContentHash());
  b->SetDouble(0, 5);
  EXPECT_NE(a.ContentHash(), b->ContentHash());
}

TEST(CompareTest, EqualArraysMatch) {
  NDArray a = Make(DType::Float32(), {8});
  a.FillRandom(1);
  NDArray b = *a.Copy();
  absl::StatusOr<CompareResult> r = Compare(a, b);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->mismatches, 0);
  EXPECT_EQ(r->first_mismatch, -1);
  EXPECT_EQ(r->max_abs_error, 0);
}

TEST(CompareTest, FloatToleranceAcceptsRoundingRejectsBugs) {
  NDArray e = Make(DType::Float32(), {2, 2});
  e.Fill(10.0);
  NDArray a = *e.Copy();
  a.SetDouble(1, 10.0 * (1 + 5e-4));  // within rtol 1e-3
  auto r = Compare(a, e);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok) << r->Summary();
  EXPECT_NEAR(r->max_rel_error, 5e-4, 1e-6);
  a.SetDouble(3, 10.5);  // a real error
  r = Compare(a, e);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->mismatches, 1);
  EXPECT_EQ(r->first_mismatch, 3);
  EXPECT_EQ(r->first_mismatch_index, (std::vector<int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ(r->max_abs_error, 0.5);
  EXPECT_THAT(r->Summary(),
              HasSubstr("1 of 4 elements differ; first at [1, 1]: got 10.5, expected 10"));
}

TEST(CompareTest, AbsoluteToleranceScalesWithMagnitude) {
  // Outputs that cancel to ~0 next to outputs of magnitude 50: the absolute
  // bound is 1e-4 * 50, so a 1e-3 error on the near-zero element passes...
  NDArray e = Make(DType::Float32(), {2});
  e.SetDouble(0, 50.0);
  e.SetDouble(1, 1e-6);
  NDArray a = *e.Copy();
  a.SetDouble(1, 1e-3);
  EXPECT_TRUE(Compare(a, e)->ok);
  // ... but not when every value is small (bound 1e-4).
  e.SetDouble(0, 0.5);
  a.SetDouble(0, 0.5);
  EXPECT_FALSE(Compare(a, e)->ok);
  // An explicit tolerance overrides the default.
  EXPECT_TRUE(Compare(a, e, Tolerance{0, 1e-2, false})->ok);
}

TEST(CompareTest, Float64IsTighter) {
  NDArray e = Make(DType::Float64(), {1});
  e.SetDouble(0, 1.0);
  NDArray a = *e.Copy();
  a.SetDouble(0, 1.0 + 1e-6);
  EXPECT_FALSE(Compare(a, e)->ok);
  a.SetDouble(0, 1.0 + 1e-12);
  EXPECT_TRUE(Compare(a, e)->ok);
}

TEST(CompareTest, IntsAreExact) {
  NDArray e = Make(DType::Int32(), {3});
  e.SetInt(2, 1000000);
  NDArray a = *e.Copy();
  EXPECT_TRUE(Compare(a, e)->ok);
  a.SetInt(2, 1000001);
  auto r = Compare(a, e);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->first_mismatch, 2);
  EXPECT_EQ(r->max_abs_error, 1);
}

TEST(CompareTest, NanAndInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  NDArray e = Make(DType::Float32(), {3});
  e.SetDouble(0, nan);
  e.SetDouble(1, inf);
  e.SetDouble(2, 1.0);
  NDArray a = *e.Copy();
  EXPECT_TRUE(Compare(a, e)->ok);  // NaN == NaN, inf == inf
  a.SetDouble(1, -inf);
  auto r = Compare(a, e);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->first_mismatch, 1);
  a.SetDouble(1, inf);
  a.SetDouble(0, 0.0);  // expected NaN, got a number
  EXPECT_FALSE(Compare(a, e)->ok);
  a.SetDouble(0, nan);
  a.SetDouble(2, nan);  // expected a number, got NaN
  r = Compare(a, e);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->first_mismatch, 2);
  a.SetDouble(2, 1e30);  // huge but finite: still wrong
  EXPECT_FALSE(Compare(a, e)->ok);
}

TEST(CompareTest, RejectsDifferentShapeOrDtype) {
  NDArray a = Make(DType::Float32(), {2, 3});
  NDArray b = Make(DType::Float32(), {3, 2});
  NDArray c = Make(DType::Int32(), {2, 3});
  auto r = Compare(a, b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot compare shape [2, 3] with shape [3, 2]"));
  r = Compare(a, c);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("float32 tensor with a int32"));
}

}  // namespace
}  // namespace tuneforge::te
