// NDArray: a host tensor (dtype, shape, 64-byte-aligned dense row-major
// storage) and the element-wise comparison the measurement layer uses to
// decide whether a compiled kernel computed the right answer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/dtype.h"

namespace tuneforge::te {

class NDArray {
 public:
  NDArray() = default;  // empty: no storage, no shape
  // Zero-filled storage. Errors: a vector dtype, a negative extent, a size
  // that overflows, or an allocation the process cannot make (the runner
  // runs under a memory limit, so this is an ordinary error, not a crash).
  static absl::StatusOr<NDArray> Empty(DType dtype, std::vector<int64_t> shape);

  NDArray(NDArray&&) noexcept = default;
  NDArray& operator=(NDArray&&) noexcept = default;
  NDArray(const NDArray&) = delete;  // copies are explicit: tensors can be large
  NDArray& operator=(const NDArray&) = delete;
  absl::StatusOr<NDArray> Copy() const;

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const { return num_elements_; }
  int64_t nbytes() const { return num_elements_ * dtype_.bytes(); }
  bool empty() const { return data_ == nullptr; }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  // Element `flat` (row-major) converted to double / int64. Bools are 0 or 1.
  double GetDouble(int64_t flat) const;
  int64_t GetInt(int64_t flat) const;
  // Stores with C conversion to the element type (floats truncate toward
  // zero when stored into ints; ints wrap to their width; bool = value != 0).
  void SetDouble(int64_t flat, double value);
  void SetInt(int64_t flat, int64_t value);

  // Row-major flat offset of a multi-index (no bounds check) and back.
  int64_t FlatIndex(std::span<const int64_t> index) const;
  std::vector<int64_t> Unflatten(int64_t flat) const;

  // Deterministic pseudo-random contents: the same seed gives the same bytes
  // on every machine (our own generator, not <random>'s distributions, whose
  // output is implementation-defined). Floats are uniform in [-1, 1) on a
  // 2^-23 grid (exact in float32), ints uniform in [-4, 4] (small, so that
  // integer reductions do not overflow), bools 0/1 with equal chance.
  void FillRandom(uint64_t seed);
  void Fill(double value);
  // A fast 64-bit hash of the bytes: detects a kernel that wrote into an input.
  uint64_t ContentHash() const;

 private:
  // Buffers of 2 MiB or more are their own anonymous mappings (mapped_bytes
  // > 0), the rest come from the heap.
  struct FreeDeleter {
    FreeDeleter() : mapped_bytes(0) {}
    explicit FreeDeleter(size_t bytes) : mapped_bytes(bytes) {}
    size_t mapped_bytes;
    void operator()(void* p) const;
  };
  DType dtype_;
  std::vector<int64_t> shape_;
  int64_t num_elements_ = 0;
  std::unique_ptr<void, FreeDeleter> data_;
};

// "[2, 3]" or "[]".
std::string ShapeToString(std::span<const int64_t> shape);

// |actual - expected| <= atol_scale * atol + rtol * |expected| for floats;
// exact equality for ints and bools. NaN equals NaN; an infinity must be
// matched by the same infinity.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  // atol is multiplied by max(1, max |expected|) when true: see Default().
  bool scale_atol_by_magnitude = true;

  // float32: rtol 1e-3, atol 1e-4. A scheduled kernel sums in a different
  // order than the reference (split reductions, vector lanes, rfactor), so
  // each output of a K-long reduction may differ by up to ~K * 2^-24 times
  // the magnitude of its terms; with inputs in [-1, 1) and K in the
  // thousands that is ~1e-4 of the output scale. The relative part covers
  // large values; the absolute part covers outputs that cancel to near zero,
  // where a relative bound would be meaningless. It is scaled by the largest
  // expected magnitude because summation error grows with the terms, not
  // with the (possibly tiny) result. A real bug (a missed tail iteration, a
  // wrong index) changes an output by about one term, ~0.1-1: far above
  // these bounds.
  // float64: rtol 1e-9, atol 1e-12 (same reasoning, 2^-53 rounding).
  // ints, bools: exact.
  static Tolerance Default(DType dtype);
};

struct CompareResult {
  bool ok = true;
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat index of the first mismatch, -1 if none
  double max_abs_error = 0;     // over elements where both values are finite
  double max_rel_error = 0;     // |a - e| / |e| where e != 0
  double actual_at_first = 0;   // the values at first_mismatch
  double expected_at_first = 0;
  std::vector<int64_t> first_mismatch_index;  // multi-index of first_mismatch

  // "12 of 64 elements differ; first at [1, 3]: got 0, expected 2.5; max abs error 2.5"
  std::string Summary() const;
};

// Errors: different dtype or shape (named in the message).
absl::StatusOr<CompareResult> Compare(const NDArray& actual, const NDArray& expected,
                                      std::optional<Tolerance> tolerance = std::nullopt);

}  // namespace tuneforge::te
