#include "tests/search/features/feature_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "common/te/workload.h"

namespace tuneforge::search::testing {

schedule::State MakeState(const std::string& spec, const std::vector<schedule::Step>& steps) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) std::abort();
  absl::StatusOr<schedule::State> s = schedule::State::Replay(w->dag, steps);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : schedule::State(w->dag);
}

ProgramFeatures Features(const schedule::State& state) {
  absl::StatusOr<ProgramFeatures> f = ExtractFeatures(state);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : ProgramFeatures{};
}

std::string Program(const schedule::State& state) {
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(state, FeatureLowerOptions());
  return f.ok() ? lower::ToString(*f) : std::string(f.status().message());
}

int Column(const std::string& name) {
  const std::vector<std::string>& names = FeatureNames();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << "no feature " << name;
  return it == names.end() ? 0 : static_cast<int>(it - names.begin());
}

float Value(const ProgramFeatures& f, int store, const std::string& name) {
  EXPECT_GE(store, 0);
  EXPECT_LT(store, f.num_stores);
  if (store < 0 || store >= f.num_stores) return -1;
  return f.row(store)[Column(name)];
}

int RowOfStage(const ProgramFeatures& f, const schedule::State& state, const std::string& stage) {
  int k = state.StageIndex(stage);
  int best = -1;
  for (int i = 0; i < f.num_stores; ++i)
    if (f.store_stage[i] == k && (best < 0 || f.row(i)[Column("num_loops")] >= f.row(best)[Column("num_loops")]))
      best = i;
  return best;
}

float Log(double x) { return static_cast<float>(std::log2(x + 1)); }

}  // namespace tuneforge::search::testing
