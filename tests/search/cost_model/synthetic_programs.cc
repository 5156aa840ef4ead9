#include "tests/search/cost_model/synthetic_programs.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tuneforge::search::testing {

std::vector<const ProgramFeatures*> SyntheticSet::pointers() const {
  std::vector<const ProgramFeatures*> out;
  for (const ProgramFeatures& program : programs) out.push_back(&program);
  return out;
}

double HiddenRowValue(const float* row) {
  // Linear, multiplicative, threshold and smooth terms; later features are noise the model must ignore.
  return 0.2 + row[0] + 2.0 * row[1] * row[2] + (row[3] > 0.5 ? 0.6 : 0.0) + 0.5 * std::sin(3.0 * row[4]);
}

SyntheticSet MakeSyntheticSet(int count, int num_features, uint64_t seed, double relative_noise) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> feature(0.0f, 1.0f);
  std::uniform_int_distribution<int> rows(1, 4);
  std::normal_distribution<double> noise(0.0, relative_noise);
  SyntheticSet set;
  std::vector<double> raw;
  for (int p = 0; p < count; ++p) {
    ProgramFeatures program;
    program.num_stores = rows(rng);
    program.num_features = num_features;
    program.values.resize(static_cast<size_t>(program.num_stores) * num_features);
    for (float& value : program.values) value = feature(rng);
    program.store_stage.assign(program.num_stores, -1);
    double sum = 0;
    for (int r = 0; r < program.num_stores; ++r) sum += HiddenRowValue(program.row(r));
    raw.push_back(std::max(1e-6, sum * (1.0 + noise(rng))));
    set.programs.push_back(std::move(program));
  }
  const double best = *std::max_element(raw.begin(), raw.end());
  for (double value : raw) set.labels.push_back(static_cast<float>(value / best));
  return set;
}

ProgramFeatures UniformProgram(int rows, int num_features, float value) {
  ProgramFeatures program;
  program.num_stores = rows;
  program.num_features = num_features;
  program.values.assign(static_cast<size_t>(rows) * num_features, value);
  program.store_stage.assign(rows, -1);
  return program;
}

double PairwiseRankingAccuracy(const std::vector<float>& scores, const std::vector<float>& labels) {
  double agree = 0;
  int pairs = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j) {
      if (labels[i] == labels[j]) continue;
      ++pairs;
      if (scores[i] == scores[j]) {
        agree += 0.5;
      } else if ((scores[i] < scores[j]) == (labels[i] < labels[j])) {
        agree += 1;
      }
    }
  }
  return pairs == 0 ? 0.5 : agree / pairs;
}

}  // namespace tuneforge::search::testing
