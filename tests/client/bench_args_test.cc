// tuneforge-bench refuses a bad --threads with a one-line error and a
// non-zero exit, never an uncaught exception; --compile-split rebuilds a real
// tuning's records at LLVM's levels, splits their compile time into its
// phases and times the fastest record built at each.
#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

TEST(BenchArgsTest, BadThreadCountsAreAnErrorNotACrash) {
  std::string dir = MakeTempDir();
  int run = 0;
  for (const char* threads : {"abc", "1,x", ",", "0", "1,-2", "99999999999999999999", "2,\xff"}) {
    service_test::ChildOptions options;
    options.argv = {service_test::BinDir() + "/tuneforge-bench", "--threads", threads};
    options.stdout_path = dir + "/bench-" + std::to_string(++run) + ".out";
    options.stderr_path = dir + "/bench-" + std::to_string(run) + ".err";
    absl::StatusOr<std::unique_ptr<ChildProcess>> bench = ChildProcess::Start(options);
    ASSERT_TRUE(bench.ok()) << bench.status();
    std::optional<int> status = (*bench)->Wait(absl::Seconds(60));
    ASSERT_TRUE(status.has_value()) << "tuneforge-bench --threads '" << threads << "' ran on";
    ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status) << " for '" << threads << "'";
    EXPECT_NE(WEXITSTATUS(*status), 0) << threads;
    EXPECT_THAT((*bench)->Stderr(), HasSubstr("--threads")) << threads;
    EXPECT_EQ(Lines((*bench)->Stderr()).size(), 1u) << (*bench)->Stderr();
  }
}

// Runs tuneforge-bench ARGS and collects its exit code and output.
CliResult RunBench(const std::string& dir, const std::vector<std::string>& args) {
  service_test::ChildOptions options;
  options.argv = {service_test::BinDir() + "/tuneforge-bench"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.stdout_path = dir + "/bench.out";
  options.stderr_path = dir + "/bench.err";
  absl::StatusOr<std::unique_ptr<ChildProcess>> bench = ChildProcess::Start(options);
  if (!bench.ok()) return {};
  return Finish(**bench, absl::Seconds(120));
}

TEST(BenchArgsTest, CompileSplitOfAMissingStoreIsOneLineError) {
  std::string dir = MakeTempDir();
  ExpectOneLineError(RunBench(dir, {"--compile-split", dir + "/none.db"}), "none.db");
}

TEST(BenchArgsTest, CompileSplitOfALevelLlvmHasNotIsOneLineError) {
  std::string dir = MakeTempDir();
  ExpectOneLineError(RunBench(dir, {"--compile-split", dir + "/none.db", "--compile-levels", "3,7"}), "level 7");
}

// A misspelt workload tuned nothing and printed an empty report.
TEST(BenchArgsTest, TuningAnUnknownWorkloadIsOneLineError) {
  std::string dir = MakeTempDir();
  ExpectOneLineError(RunBench(dir, {"--tuning", "--workloads", "matmul_1024,conv3x3", "--trials", "4"}), "conv3x3");
}

TEST(BenchArgsTest, CompileSplitRebuildsATuningsRecordsAtEachLevelAndTimesTheBest) {
  std::string dir = MakeTempDir();
  CliResult tuned = RunCliIn(dir, With({"tune", kMatmul64, "--trials", "8", "--db", dir + "/t.db", "--json"},
                                       kQuickMeasure));
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  CliResult split = RunBench(dir, {"--compile-split", dir + "/t.db", "--compile-records", "4", "--compile-levels",
                                   "3,0", "--compile-timed", "1", "--json"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  ASSERT_TRUE(split.json.is_object()) << split.out;
  EXPECT_EQ(split.json["rebuilt"], 4);
  EXPECT_EQ(split.json["failed"], 0);
  for (const char* level : {"O3", "O0"}) {
    const nlohmann::json& phases = split.json["levels"][level]["phases"];
    double shares = 0;
    for (const char* phase : {"replay + lower", "LLVM module", "LLVM optimize", "machine code"}) {
      ASSERT_TRUE(phases.contains(phase)) << level << " " << phases.dump();
      EXPECT_GE(phases[phase]["p50_ms"].get<double>(), 0) << phase;
      shares += phases[phase]["share"].get<double>();
    }
    // Machine code is real work for every candidate at every level.
    EXPECT_GT(phases["machine code"]["p50_ms"].get<double>(), 0) << level;
    EXPECT_GT(phases["total"]["p50_ms"].get<double>(), phases["machine code"]["p50_ms"].get<double>()) << level;
    EXPECT_NEAR(shares, 1.0, 1e-6) << level;  // the phases are the whole build
  }
  // LLVM's O3 pipeline is real work; O0 runs next to none of it.
  EXPECT_GT(split.json["levels"]["O3"]["phases"]["LLVM optimize"]["p50_ms"].get<double>(),
            split.json["levels"]["O0"]["phases"]["LLVM optimize"]["p50_ms"].get<double>());
  // The store's fastest record, built both ways, ran both ways.
  ASSERT_EQ(split.json["timed"].size(), 1u) << split.out;
  EXPECT_GT(split.json["timed"][0]["O3_gflops"].get<double>(), 0) << split.out;
  EXPECT_GT(split.json["timed"][0]["O0_gflops"].get<double>(), 0) << split.out;
  EXPECT_GT(split.json["gflops_ratio_to_O3"]["O0"].get<double>(), 0) << split.out;
}

}  // namespace
}  // namespace tuneforge::client_test
