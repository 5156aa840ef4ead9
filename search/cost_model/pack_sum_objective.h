// Ansor's "pack-sum" squared error: XGBoost sees store rows, but labels
// belong to programs, and a program's prediction is the sum of its rows'
// raw predictions. For program p with rows s:
//
//   pred_p = sum_s pred_s
//   loss   = sum_p w_p (pred_p - y_p)^2 / sum_p w_p
//   grad_s = w_p (pred_p - y_p)       (the factor 2 dropped from both
//   hess_s = w_p                       gradient and hessian alike)
//
// The hessian is the diagonal of the true one (w_p on the whole p x p
// block), as in Ansor. Weights follow Ansor: w_p = y_p, so that the fast
// programs, which decide what the search keeps, are fitted best; floored
// at kMinPackSumWeight so that failed programs (y_p = 0) are still pulled
// towards 0 instead of being ignored.
#pragma once

#include <cstddef>
#include <vector>

namespace tuneforge::search {

inline constexpr float kMinPackSumWeight = 0.01f;

inline float PackSumWeight(float label) { return label > kMinPackSumWeight ? label : kMinPackSumWeight; }

struct PackSumGradients {
  std::vector<float> grad;  // per row
  std::vector<float> hess;  // per row
  double loss = 0;          // weighted mean squared error over programs with rows
};

// `row_predictions` are raw margins, one per row; program p owns rows
// [begin[p], begin[p+1]) and has label labels[p]. Programs without rows
// add nothing.
PackSumGradients PackSumSquaredError(const std::vector<float>& row_predictions, const std::vector<size_t>& begin,
                                     const std::vector<float>& labels);

}  // namespace tuneforge::search
