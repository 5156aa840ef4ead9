// `tuneforge tune` in its embedded default: the server and a local worker
// in the tuneforge process, records in ./tuneforge.db (or --db). A tiny
// tune gives a correct best and a JSON with every field; the best is then
// found by `best` and re-measured by `measure --best`; Ctrl-C cancels the
// job cleanly and keeps its records.
#include <signal.h>

#include <filesystem>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

TEST(TuneCliTest, TinyTuneGivesACorrectBestAndEveryJsonField) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/tune.db";
  CliResult r = RunCliIn(dir, With({"tune", kMatmul64, "--trials", "8", "--batch", "4", "--db", db,
                                    "--json"},
                                   kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_TRUE(r.json.is_object()) << r.out;
  const nlohmann::json& j = r.json;
  for (const char* field : {"best_gflops", "best_seconds", "trials", "wall_s", "best_schedule", "job"})
    EXPECT_TRUE(j.contains(field)) << "no '" << field << "' in " << r.out;
  EXPECT_EQ(j["trials"], 8);
  EXPECT_EQ(j["state"], "done");
  EXPECT_GT(j["best_gflops"].get<double>(), 0);
  EXPECT_GT(j["best_seconds"].get<double>(), 0);
  EXPECT_NEAR(j["best_gflops"].get<double>() * 1e9 * j["best_seconds"].get<double>(), kMatmul64Flops,
              1e-3 * kMatmul64Flops);
  EXPECT_GT(j["wall_s"].get<double>(), 0);
  EXPECT_FALSE(j["job"].get<std::string>().empty());
  ASSERT_TRUE(j["best_schedule"].is_object());
  EXPECT_TRUE(j["best_schedule"]["steps"].is_array());
  EXPECT_EQ(j["workload"], "matmul:K=64,M=64,N=64");
  EXPECT_EQ(j["records"], db);
  // The server's search work: Ansor (the default) proposed both rounds and
  // learned from the first; its model scored programs in the second.
  ASSERT_TRUE(j["search"].is_object()) << r.out;
  EXPECT_GT(j["search"]["propose_s"].get<double>(), 0);
  EXPECT_GT(j["search"]["learn_s"].get<double>(), 0);
  EXPECT_GT(j["search"]["programs_scored"].get<int64_t>(), 0);
  EXPECT_THAT(r.err, ContainsRegex("\\| search [0-9.]+ s \\([0-9]+ programs scored\\)"));
  // The worker's side: every candidate was built and run, and the winner
  // re-timed (on by default); none of it longer than the whole tuning.
  ASSERT_TRUE(j["measure"].is_object()) << r.out;
  EXPECT_GT(j["measure"]["compile_s"].get<double>(), 0);
  EXPECT_GT(j["measure"]["run_s"].get<double>(), 0);
  EXPECT_GT(j["measure"]["retime_s"].get<double>(), 0);
  EXPECT_LT(j["measure"]["run_s"].get<double>() + j["measure"]["retime_s"].get<double>(), j["wall_s"].get<double>());
  // Progress went to stderr, one line per round.
  EXPECT_THAT(r.err, HasSubstr("round 1: 4/8 trials"));
  EXPECT_THAT(r.err, HasSubstr("round 2: 8/8 trials"));

  // The record store has it: `best` straight from the file...
  CliResult best = RunCliIn(dir, {"best", kMatmul64, "--db", db, "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_TRUE(best.json["found"].get<bool>());
  EXPECT_EQ(best.json["schedule"], j["best_schedule"]);
  EXPECT_DOUBLE_EQ(best.json["seconds"].get<double>(), j["best_seconds"].get<double>());
  EXPECT_EQ(best.json["target"], j["target"]);
  // The winner was timed again before the job ended (re-timing is on by default).
  EXPECT_GE(best.json["timings"].get<int>(), 2);
  EXPECT_THAT(r.err, HasSubstr("re-timed"));
  // ...and the schedule, measured again, is correct.
  CliResult measured =
      RunCliIn(dir, {"measure", kMatmul64, "--best", "--db", db, "--repeat", "1", "--json"});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  EXPECT_TRUE(measured.json["correct"].get<bool>());
  EXPECT_EQ(measured.json["best_record"]["job"], j["job"]);
  // Every trial is a record.
  CliResult exported = RunCliIn(dir, {"export", "--db", db, "--out", dir + "/all.jsonl", "--json"});
  EXPECT_EQ(exported.json["exported"], 8);
}

TEST(TuneCliTest, DefaultDatabaseIsInTheWorkingFolderAndProgressIsPrinted) {
  std::string dir = MakeTempDir();
  CliResult r = RunCliIn(dir, With({"tune", kMatmul64, "--trials", "6", "--batch", "3"}, kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/tuneforge.db"));
  // Text mode: the live lines and the result on stdout.
  EXPECT_THAT(r.out, ContainsRegex("job [^ ]+: tuning matmul:K=64,M=64,N=64 on [^ ]+, 6 trials, "
                                   "records in tuneforge.db"));
  EXPECT_THAT(r.out, ContainsRegex("round 1: 3/6 trials, best [0-9.]+ GFLOPS \\([0-9.e+-]+ ms\\)"
                                   "(, [0-9]+ errors)?, ETA [0-9.]+ (s|min)"));
  EXPECT_THAT(r.out, HasSubstr("round 2: 6/6 trials"));
  EXPECT_THAT(r.out, ContainsRegex("best [0-9.]+ GFLOPS \\([0-9.]+ ms\\) after 6 trials"));
  CliResult best = RunCliIn(dir, {"best", kMatmul64, "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_TRUE(best.json["found"].get<bool>());
}

TEST(TuneCliTest, CtrlCCancelsTheJobCleanlyAndKeepsItsRecords) {
  std::string dir = MakeTempDir();
  absl::StatusOr<std::unique_ptr<ChildProcess>> tune = StartCli(
      dir, {"tune", kMatmul64, "--trials", "5000", "--batch", "4", "--min-repeat-ms", "10", "--json"});
  ASSERT_TRUE(tune.ok()) << tune.status();
  // Wait for the first round, so there is something to keep.
  ASSERT_TRUE((*tune)->WaitForOutput(std::regex("round 1: "), absl::Seconds(90)).ok())
      << (*tune)->OutputTail();
  (*tune)->Signal(SIGINT);
  CliResult r = Finish(**tune, absl::Seconds(60));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_THAT(r.err, HasSubstr("interrupted: cancelling job"));
  EXPECT_THAT(r.err, ContainsRegex("error: job [^ ]+ cancelled after [0-9]+ of 5000 trials"));
  ASSERT_TRUE(r.json.is_object()) << r.out;
  EXPECT_EQ(r.json["state"], "cancelled");
  int trials = r.json["trials"].get<int>();
  EXPECT_GE(trials, 4);
  EXPECT_LT(trials, 5000);
  // Every record of the cancelled job was kept, and the database is usable.
  CliResult exported = RunCliIn(dir, {"export", "--out", dir + "/kept.jsonl", "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_GE(exported.json["exported"].get<int>(), trials);
}

}  // namespace
}  // namespace tuneforge::client_test
