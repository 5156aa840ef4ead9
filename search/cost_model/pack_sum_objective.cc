#include "search/cost_model/pack_sum_objective.h"

namespace tuneforge::search {

PackSumGradients PackSumSquaredError(const std::vector<float>& row_predictions, const std::vector<size_t>& begin,
                                     const std::vector<float>& labels) {
  PackSumGradients out;
  out.grad.assign(row_predictions.size(), 0.0f);
  out.hess.assign(row_predictions.size(), 0.0f);
  double weighted_error = 0;
  double total_weight = 0;
  for (size_t p = 0; p + 1 < begin.size(); ++p) {
    if (begin[p] == begin[p + 1]) continue;
    double pred = 0;
    for (size_t r = begin[p]; r < begin[p + 1]; ++r) pred += row_predictions[r];
    const double weight = PackSumWeight(labels[p]);
    const double residual = pred - labels[p];
    for (size_t r = begin[p]; r < begin[p + 1]; ++r) {
      out.grad[r] = static_cast<float>(weight * residual);
      out.hess[r] = static_cast<float>(weight);
    }
    weighted_error += weight * residual * residual;
    total_weight += weight;
  }
  out.loss = total_weight > 0 ? weighted_error / total_weight : 0;
  return out;
}

}  // namespace tuneforge::search
