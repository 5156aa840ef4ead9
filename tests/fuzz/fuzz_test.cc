// Differential fuzz test: random valid schedules (every step kind, every op
// of the library, non-divisible splits included) are lowered, compiled with
// LLVM, run, and compared with the reference interpreter on the same random
// inputs. TUNEFORGE_FUZZ_CASES sets the number of cases (default 3000, split
// over 8 shards); TUNEFORGE_FUZZ_OUT where failing cases are written as
// replayable schedule files (default: the system temp folder).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "common/schedule/schedule_json.h"
#include "common/te/ndarray.h"
#include "common/te/workload.h"
#include "search/random_steps.h"
#include "tests/lower/loop_interpreter.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::fuzz {
namespace {

using search::kNumStepKinds;
using search::RandomSchedule;
using search::RandomScheduleStats;

constexpr int kShards = 8;

// Small shapes of every op of the library (the interpreter is the oracle,
// so shapes stay small), plus fused forms and other dtypes.
const std::vector<std::string> kWorkloads = {
    "matmul:M=9,N=16,K=7",
    "matmul+relu:M=6,N=10,K=5",
    "matmul:M=8,N=8,K=8,dtype=float64",
    "matmul:M=6,N=7,K=5,dtype=int32",
    "batch_matmul:B=2,M=5,N=8,K=6",
    "dense+bias:M=4,N=10,K=12",
    "conv1d:N=1,C=3,W=10,K=4,S=3,pad=1,stride=2",
    "conv2d:N=1,C=4,H=7,W=7,K=4,R=3,S=3,pad=1",
    "conv2d:N=2,C=4,H=6,W=5,K=6,R=3,S=2,stride=2,groups=2",
    "conv2d:N=1,C=2,H=7,W=7,K=3,R=3,S=3,dilation=2,pad=2",
    "conv2d+bias+relu:N=1,C=3,H=5,W=5,K=4,R=3,S=3,pad=1",
    "conv2d+add+relu:N=1,C=2,H=4,W=4,K=2,R=3,S=3,pad=1",
    "conv3d:N=1,C=2,D=4,H=4,W=4,K=3,T=2,R=2,S=2,pad=1",
    "depthwise_conv2d:N=1,C=4,H=6,W=6,R=3,S=3,pad=1,stride=2",
    "conv2d_transpose:N=1,C=3,H=4,W=4,K=2,R=3,S=3,stride=2,pad=1",
    "capsule_conv2d:N=1,H=4,W=4,C=2,K=2,R=3,S=3,pad=1,capsule=2",
    "max_pool2d:N=1,C=3,H=6,W=6,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=5,W=5,R=2,S=2",
    "softmax:M=4,N=9",
    "norm:M=5,N=7",
    "layer_norm:M=3,N=10",
    "relu:N=2,C=3,H=4,W=5",
    "add+sigmoid:M=7,N=9",
};

int TotalCases() {
  const char* env = std::getenv("TUNEFORGE_FUZZ_CASES");
  return env ? std::max(kShards, std::atoi(env)) : 3000;
}

std::string OutDir() {
  const char* env = std::getenv("TUNEFORGE_FUZZ_OUT");
  return env ? env : std::filesystem::temp_directory_path().string();
}

// Runs one case; returns "" when it matches, else what went wrong.
std::string RunCase(const te::Workload& w, const schedule::State& state, uint64_t seed) {
  search::testing::ReferenceRun run;
  std::string error = search::testing::CheckAgainstReference(w, state, seed, &run);
  if (run.mismatched_output < 0) return error;
  // Tell a lowering bug from a code generation bug: run the loop nest
  // without LLVM too.
  std::vector<te::NDArray> lowered_outputs;
  std::vector<te::NDArray*> ptrs;
  for (te::NDArray& a : run.inputs) ptrs.push_back(&a);
  for (const te::NDArray& e : run.expected) {
    lowered_outputs.push_back(*te::NDArray::Empty(e.dtype(), e.shape()));
    lowered_outputs.back().Fill(-777);
  }
  for (te::NDArray& a : lowered_outputs) ptrs.push_back(&a);
  absl::Status ran = lower::testing::RunLoweredFunc(*run.func, ptrs);
  bool lowered_ok = ran.ok();
  for (size_t k = 0; lowered_ok && k < lowered_outputs.size(); ++k) {
    absl::StatusOr<te::CompareResult> lc = te::Compare(lowered_outputs[k], run.expected[k]);
    lowered_ok = lc.ok() && lc->ok;
  }
  return absl::StrCat(error,
                      lowered_ok ? " (the loop nest itself is right: a code generation bug)"
                                 : " (the loop nest is wrong too: a lowering bug)",
                      "\n", lower::ToString(*run.func));
}

class FuzzShard : public ::testing::TestWithParam<int> {};

TEST_P(FuzzShard, RandomSchedulesMatchTheReference) {
  int shard = GetParam();
  std::vector<te::Workload> workloads;
  for (const std::string& spec : kWorkloads) {
    absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
    ASSERT_TRUE(w.ok()) << spec << ": " << w.status();
    workloads.push_back(*std::move(w));
  }
  RandomScheduleStats stats;
  std::string current = absl::StrCat(OutDir(), "/tuneforge-fuzz-running-shard", shard, ".json");
  int failures = 0;
  for (int c = shard; c < TotalCases(); c += kShards) {
    const te::Workload& w = workloads[c % workloads.size()];
    std::mt19937_64 rng(0x5eed0000u + c);
    int attempts = std::uniform_int_distribution<int>(2, 24)(rng);
    schedule::State state = RandomSchedule(w.dag, rng, attempts, &stats);
    schedule::Schedule sched{schedule::kScheduleVersion, w.spec, w.dag->workload_key(), state.steps()};
    // Written before running: if the kernel crashes the process, the case
    // that did it is on disk.
    ASSERT_TRUE(schedule::SaveScheduleFile(sched, current).ok());
    std::string error = RunCase(w, state, c);
    if (error.empty()) continue;
    std::string file = absl::StrCat(OutDir(), "/tuneforge-fuzz-failure-", c, ".json");
    (void)schedule::SaveScheduleFile(sched, file);
    ADD_FAILURE() << "case " << c << " (" << w.spec << "): " << error << "\nschedule (" << file
                  << "), replay with: build/bin/tuneforge measure --schedule " << file << "\n"
                  << schedule::ScheduleToJsonText(sched) << "\nstate:\n" << state.ToString();
    if (++failures >= 5) break;
  }
  std::filesystem::remove(current);
  // The generator must really exercise every step kind.
  std::string counts;
  for (int k = 0; k < kNumStepKinds; ++k)
    absl::StrAppend(&counts, k ? ", " : "", k, ":", stats.accepted[k], "/", stats.proposed[k]);
  std::cout << "shard " << shard << " accepted/proposed per step kind: " << counts << "\n";
  for (int k = 0; k < kNumStepKinds; ++k)
    EXPECT_GT(stats.accepted[k], 0) << "step kind " << k << " never accepted (proposed "
                                    << stats.proposed[k] << " times)";
}

INSTANTIATE_TEST_SUITE_P(Shards, FuzzShard, ::testing::Range(0, kShards));

}  // namespace
}  // namespace tuneforge::fuzz
