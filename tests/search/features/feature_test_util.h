// Helpers for the feature tests: states of a workload from steps, lowered
// for features, and the value of a named feature of a row.
#pragma once

#include <string>
#include <vector>

#include "common/schedule/state.h"
#include "search/features/features.h"

namespace tuneforge::search::testing {

// The state of workload `spec` ("matmul:M=4,N=8,K=16") after `steps`;
// fails the test on a bad spec or step.
schedule::State MakeState(const std::string& spec, const std::vector<schedule::Step>& steps = {});

// Extracted features; fails the test on error.
ProgramFeatures Features(const schedule::State& state);

// The lowered program as text (for failure messages).
std::string Program(const schedule::State& state);

// Column of the feature named `name` (fails the test if unknown).
int Column(const std::string& name);
// row `store`, feature `name`.
float Value(const ProgramFeatures& f, int store, const std::string& name);
// The row whose store writes stage `stage` and has the most loops (the
// update of a reduction rather than its init), or -1.
int RowOfStage(const ProgramFeatures& f, const schedule::State& state, const std::string& stage);

// log2(x + 1): how kLog features are stored.
float Log(double x);

}  // namespace tuneforge::search::testing
