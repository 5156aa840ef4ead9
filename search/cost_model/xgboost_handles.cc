#include "search/cost_model/xgboost_handles.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace tuneforge::search::xgb {

absl::Status Check(int rc, absl::string_view doing) {
  if (rc == 0) return absl::OkStatus();
  const char* error = XGBGetLastError();
  return absl::InternalError(absl::StrCat("XGBoost failed ", doing, ": ", error != nullptr ? error : "(no message)"));
}

absl::StatusOr<DMatrix> DMatrix::FromDense(const float* values, size_t rows, size_t cols) {
  DMatrixHandle handle = nullptr;
  if (absl::Status s = Check(XGDMatrixCreateFromMat(values, rows, cols, std::nanf(""), &handle),
                             absl::StrCat("creating a ", rows, " x ", cols, " matrix"));
      !s.ok())
    return s;
  return DMatrix(handle);
}

DMatrix::~DMatrix() {
  if (handle_ != nullptr) XGDMatrixFree(handle_);
}

absl::StatusOr<Booster> Booster::Create(const DMatrix* train) {
  BoosterHandle handle = nullptr;
  DMatrixHandle cache[1] = {train != nullptr ? train->get() : nullptr};
  if (absl::Status s = Check(XGBoosterCreate(cache, train != nullptr ? 1 : 0, &handle), "creating a booster");
      !s.ok())
    return s;
  return Booster(handle);
}

Booster::~Booster() {
  if (handle_ != nullptr) XGBoosterFree(handle_);
}

absl::Status Booster::SetParam(const char* name, const std::string& value) {
  return Check(XGBoosterSetParam(handle_, name, value.c_str()), absl::StrCat("setting parameter ", name));
}

}  // namespace tuneforge::search::xgb
