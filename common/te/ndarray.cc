#include "common/te/ndarray.h"

#include <sys/mman.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tuneforge::te {
namespace {

constexpr int64_t kAlignment = 64;

// SplitMix64: tiny, fast, and fully specified, so every machine produces the
// same stream for a seed.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// C conversion of a double to an integer type, made total: NaN -> 0 and
// out-of-range values saturate (C leaves both undefined).
int64_t DoubleToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

void NDArray::FreeDeleter::operator()(void* p) const {
  if (mapped_bytes > 0)
    munmap(p, mapped_bytes);
  else
    std::free(p);
}

namespace {

// A large buffer as a fresh anonymous mapping, 2 MiB-aligned and advised to
// use huge pages, so that every large tensor gets huge pages on first touch.
// From the heap, a 4 MiB buffer may reuse memory an earlier tensor already
// faulted in with 4 KiB pages (glibc raises its mmap threshold after the first
// large free), so a kernel's measured speed could depend on what the process
// allocated before it.
void* MapHugeAligned(size_t bytes) {
  constexpr size_t kHuge = 2 << 20;
  size_t span = bytes + kHuge;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHuge - 1) / kHuge * kHuge;
  if (aligned > start) munmap(raw, aligned - start);
  size_t tail = start + span - (aligned + bytes);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

}  // namespace

std::string ShapeToString(std::span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::StatusOr<NDArray> NDArray::Empty(DType dtype, std::vector<int64_t> shape) {
  if (dtype.is_vector())
    return absl::InvalidArgumentError(absl::StrCat("NDArray of vector type ", ToString(dtype),
                                                   ": use the element type ",
                                                   ToString(dtype.element()), " instead"));
  int64_t n = 1;
  const int64_t limit = std::numeric_limits<int64_t>::max() / 8;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("NDArray shape ", ShapeToString(shape), ": dimension ", d, " is negative"));
    if (shape[d] != 0 && n > limit / shape[d])
      return absl::InvalidArgumentError(
          absl::StrCat("NDArray shape ", ShapeToString(shape), " has too many elements"));
    n *= shape[d];
  }
  NDArray a;
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  a.num_elements_ = n;
  int64_t bytes =
      std::max<int64_t>(kAlignment, (n * dtype.bytes() + kAlignment - 1) / kAlignment * kAlignment);
  constexpr int64_t kHuge = 2 << 20;
  void* p = nullptr;
  size_t mapped_bytes = 0;
  if (bytes >= kHuge) {
    bytes = (bytes + kHuge - 1) / kHuge * kHuge;
    p = MapHugeAligned(static_cast<size_t>(bytes));
    if (p) mapped_bytes = static_cast<size_t>(bytes);
  } else {
    p = std::aligned_alloc(kAlignment, static_cast<size_t>(bytes));
  }
  if (p == nullptr)
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", bytes, " bytes for a ", ToString(dtype), ShapeToString(a.shape_),
        " tensor; use smaller shapes or raise the memory limit"));
  // Also faults a mapping's pages in now, not in a kernel's first timed run.
  std::memset(p, 0, static_cast<size_t>(bytes));
  a.data_ = std::unique_ptr<void, FreeDeleter>(p, FreeDeleter{mapped_bytes});
  return a;
}

absl::StatusOr<NDArray> NDArray::Copy() const {
  absl::StatusOr<NDArray> copy = Empty(dtype_, shape_);
  if (!copy.ok()) return copy.status();
  if (nbytes() > 0) std::memcpy(copy->data(), data(), static_cast<size_t>(nbytes()));
  return copy;
}

double NDArray::GetDouble(int64_t flat) const {
  const void* p = data_.get();
  switch (dtype_.scalar) {
    case ScalarType::kBool:
      return static_cast<const uint8_t*>(p)[flat] != 0 ? 1.0 : 0.0;
    case ScalarType::kInt8:
      return static_cast<const int8_t*>(p)[flat];
    case ScalarType::kInt32:
      return static_cast<const int32_t*>(p)[flat];
    case ScalarType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(p)[flat]);
    case ScalarType::kFloat32:
      return static_cast<const float*>(p)[flat];
    case ScalarType::kFloat64:
      return static_cast<const double*>(p)[flat];
  }
  return 0;
}

int64_t NDArray::GetInt(int64_t flat) const {
  const void* p = data_.get();
  switch (dtype_.scalar) {
    case ScalarType::kBool:
      return static_cast<const uint8_t*>(p)[flat] != 0 ? 1 : 0;
    case ScalarType::kInt8:
      return static_cast<const int8_t*>(p)[flat];
    case ScalarType::kInt32:
      return static_cast<const int32_t*>(p)[flat];
    case ScalarType::kInt64:
      return static_cast<const int64_t*>(p)[flat];
    case ScalarType::kFloat32:
      return DoubleToInt64(static_cast<const float*>(p)[flat]);
    case ScalarType::kFloat64:
      return DoubleToInt64(static_cast<const double*>(p)[flat]);
  }
  return 0;
}

void NDArray::SetDouble(int64_t flat, double value) {
  void* p = data_.get();
  switch (dtype_.scalar) {
    case ScalarType::kFloat32:
      static_cast<float*>(p)[flat] = static_cast<float>(value);
      return;
    case ScalarType::kFloat64:
      static_cast<double*>(p)[flat] = value;
      return;
    case ScalarType::kBool:
      static_cast<uint8_t*>(p)[flat] = value != 0 ? 1 : 0;
      return;
    default:
      SetInt(flat, DoubleToInt64(value));
      return;
  }
}

void NDArray::SetInt(int64_t flat, int64_t value) {
  void* p = data_.get();
  // Narrowing goes through unsigned types: modular wrap-around, never UB.
  switch (dtype_.scalar) {
    case ScalarType::kBool:
      static_cast<uint8_t*>(p)[flat] = value != 0 ? 1 : 0;
      return;
    case ScalarType::kInt8:
      static_cast<int8_t*>(p)[flat] = static_cast<int8_t>(static_cast<uint8_t>(value));
      return;
    case ScalarType::kInt32:
      static_cast<int32_t*>(p)[flat] = static_cast<int32_t>(static_cast<uint32_t>(value));
      return;
    case ScalarType::kInt64:
      static_cast<int64_t*>(p)[flat] = value;
      return;
    case ScalarType::kFloat32:
      static_cast<float*>(p)[flat] = static_cast<float>(value);
      return;
    case ScalarType::kFloat64:
      static_cast<double*>(p)[flat] = static_cast<double>(value);
      return;
  }
}

int64_t NDArray::FlatIndex(std::span<const int64_t> index) const {
  int64_t flat = 0;
  for (size_t d = 0; d < index.size() && d < shape_.size(); ++d) flat = flat * shape_[d] + index[d];
  return flat;
}

std::vector<int64_t> NDArray::Unflatten(int64_t flat) const {
  std::vector<int64_t> index(shape_.size(), 0);
  for (int d = static_cast<int>(shape_.size()) - 1; d >= 0; --d) {
    if (shape_[d] == 0) continue;
    index[d] = flat % shape_[d];
    flat /= shape_[d];
  }
  return index;
}

void NDArray::FillRandom(uint64_t seed) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < num_elements_; ++i) {
    uint64_t r = rng.Next();
    if (dtype_.is_float()) {
      // 24 random bits -> k * 2^-23 - 1 in [-1, 1), exact in float32.
      SetDouble(i, static_cast<double>(r >> 40) * 0x1p-23 - 1.0);
    } else if (dtype_.is_bool()) {
      SetInt(i, static_cast<int64_t>(r >> 63));
    } else {
      SetInt(i, static_cast<int64_t>((r >> 32) % 9) - 4);
    }
  }
}

void NDArray::Fill(double value) {
  for (int64_t i = 0; i < num_elements_; ++i) SetDouble(i, value);
}

uint64_t NDArray::ContentHash() const {
  // Word at a time (a byte-wise FNV costs ~5 ns/byte, which showed up as
  // milliseconds per measured candidate); the tail bytes one by one.
  const auto* bytes = static_cast<const unsigned char*>(data_.get());
  const int64_t n = nbytes(), words = n / 8;
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(n);
  for (int64_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, bytes + i * 8, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  for (int64_t i = words * 8; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

Tolerance Tolerance::Default(DType dtype) {
  switch (dtype.scalar) {
    case ScalarType::kFloat32:
      return {1e-3, 1e-4, true};
    case ScalarType::kFloat64:
      return {1e-9, 1e-12, true};
    default:
      return {0, 0, false};
  }
}

std::string CompareResult::Summary() const {
  if (ok) return absl::StrCat("all elements match; max abs error ", max_abs_error);
  return absl::StrCat(mismatches, " of ", elements, " elements differ; first at ",
                      ShapeToString(first_mismatch_index), ": got ", actual_at_first, ", expected ",
                      expected_at_first, "; max abs error ", max_abs_error, ", max rel error ",
                      max_rel_error);
}

namespace {

// One float element: NaN matches NaN, infinities match exactly, finite
// values within the bound.
bool FloatMatches(double a, double e, double bound) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return a == e;
  return std::fabs(a - e) <= bound;
}

}  // namespace

absl::StatusOr<CompareResult> Compare(const NDArray& actual, const NDArray& expected,
                                      std::optional<Tolerance> tolerance) {
  if (actual.dtype() != expected.dtype())
    return absl::InvalidArgumentError(absl::StrCat("cannot compare a ", ToString(actual.dtype()),
                                                   " tensor with a ", ToString(expected.dtype()),
                                                   " one; the dtypes must be equal"));
  if (actual.shape() != expected.shape())
    return absl::InvalidArgumentError(
        absl::StrCat("cannot compare shape ", ShapeToString(actual.shape()), " with shape ",
                     ShapeToString(expected.shape()), "; the shapes must be equal"));
  const DType dtype = expected.dtype();
  const Tolerance tol = tolerance.value_or(Tolerance::Default(dtype));
  CompareResult result;
  const int64_t n = expected.num_elements();
  result.elements = n;
  auto record_mismatch = [&](int64_t i, double a, double e) {
    if (result.mismatches++ == 0) {
      result.first_mismatch = i;
      result.actual_at_first = a;
      result.expected_at_first = e;
    }
  };
  if (dtype.is_float()) {
    double magnitude = 1;
    if (tol.scale_atol_by_magnitude)
      for (int64_t i = 0; i < n; ++i) {
        double e = std::fabs(expected.GetDouble(i));
        if (std::isfinite(e)) magnitude = std::max(magnitude, e);
      }
    const double atol = tol.atol * magnitude;
    for (int64_t i = 0; i < n; ++i) {
      double a = actual.GetDouble(i), e = expected.GetDouble(i);
      if (std::isfinite(a) && std::isfinite(e)) {
        double diff = std::fabs(a - e);
        result.max_abs_error = std::max(result.max_abs_error, diff);
        if (e != 0) result.max_rel_error = std::max(result.max_rel_error, diff / std::fabs(e));
      }
      if (!FloatMatches(a, e, atol + tol.rtol * std::fabs(e))) record_mismatch(i, a, e);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = actual.GetInt(i), e = expected.GetInt(i);
      double diff = std::fabs(static_cast<double>(a) - static_cast<double>(e));
      result.max_abs_error = std::max(result.max_abs_error, diff);
      if (e != 0)
        result.max_rel_error = std::max(result.max_rel_error, diff / std::fabs(double(e)));
      if (a != e) record_mismatch(i, static_cast<double>(a), static_cast<double>(e));
    }
  }
  result.ok = result.mismatches == 0;
  if (!result.ok) result.first_mismatch_index = expected.Unflatten(result.first_mismatch);
  return result;
}

}  // namespace tuneforge::te
