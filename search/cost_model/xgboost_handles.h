// Owning wrappers for XGBoost's C handles, and its return codes as Status.
// Used only by the XGBoost cost model; XGBoost reports errors by return
// code (it catches its own exceptions at the C boundary), so nothing here
// throws or aborts.
#pragma once

#include <cstddef>
#include "absl/strings/string_view.h"
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xgboost/c_api.h"

namespace tuneforge::search::xgb {

// OK for rc 0; else INTERNAL naming `doing` and XGBoost's last error.
absl::Status Check(int rc, absl::string_view doing);

class DMatrix {
 public:
  // A dense row-major matrix; NaN marks a missing value. Copies `values`.
  static absl::StatusOr<DMatrix> FromDense(const float* values, size_t rows, size_t cols);
  DMatrix(DMatrix&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  DMatrix& operator=(DMatrix&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  ~DMatrix();
  DMatrixHandle get() const { return handle_; }

 private:
  explicit DMatrix(DMatrixHandle handle) : handle_(handle) {}
  DMatrixHandle handle_ = nullptr;
};

class Booster {
 public:
  Booster() = default;  // holds nothing
  // A booster that caches predictions for `train` (none: for loading a model).
  static absl::StatusOr<Booster> Create(const DMatrix* train);
  explicit Booster(BoosterHandle handle) : handle_(handle) {}
  Booster(Booster&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Booster& operator=(Booster&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  ~Booster();
  BoosterHandle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  absl::Status SetParam(const char* name, const std::string& value);

 private:
  BoosterHandle handle_ = nullptr;
};

}  // namespace tuneforge::search::xgb
