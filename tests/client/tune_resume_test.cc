// An embedded `tune` killed mid-run leaves its job unfinished in the
// database. The same command again continues that job (and says so) rather
// than starting a second one beside it: the database ends with as many
// records as trials were asked for. --fresh cancels it and starts anew.
#include <signal.h>

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

std::vector<std::string> TuneArgs(const std::string& db, int trials, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"tune", kMatmul64, "--trials", std::to_string(trials), "--batch", "4",
                                   "--db", db, "--repeat", "1", "--number", "1", "--min-repeat-ms", "1",
                                   "--threads", "1", "--json"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Starts the tune and kills it (SIGKILL, no cleanup) after its first round;
// returns the job id it printed.
std::string StartAndKill(const std::string& dir, const std::vector<std::string>& args) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> tune = StartCli(dir, args);
  EXPECT_TRUE(tune.ok()) << tune.status();
  if (!tune.ok()) return "";
  absl::StatusOr<std::string> job = (*tune)->WaitForOutput(std::regex("job ([^ ]+): tuning"), absl::Seconds(60));
  EXPECT_TRUE(job.ok()) << (*tune)->OutputTail();
  EXPECT_TRUE((*tune)->WaitForOutput(std::regex("round 1: "), absl::Seconds(120)).ok()) << (*tune)->OutputTail();
  (*tune)->KillAndReap();
  EXPECT_THAT((*tune)->Stderr(), ::testing::Not(HasSubstr("round 6: 24/24")));
  return job.ok() ? *job : "";
}

int64_t RecordsIn(const std::string& dir, const std::string& db) {
  CliResult exported = RunCliIn(dir, {"export", "--db", db, "--out", dir + "/all.jsonl", "--json"});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  return exported.json.is_object() ? exported.json["exported"].get<int64_t>() : -1;
}

TEST(TuneResumeTest, TheSameCommandContinuesTheKilledJob) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/tune.db";
  const std::string job = StartAndKill(dir, TuneArgs(db, 24));
  ASSERT_FALSE(job.empty());

  CliResult again = RunCliIn(dir, TuneArgs(db, 24), absl::Seconds(240));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("continuing job " + job + ", which an earlier 'tuneforge tune'"));
  EXPECT_THAT(again.err, HasSubstr("give --fresh"));
  ASSERT_TRUE(again.json.is_object()) << again.out;
  EXPECT_EQ(again.json["job"], job);
  EXPECT_EQ(again.json["continued"], true);
  EXPECT_EQ(again.json["trials"], 24);
  // One job's trials, not two (re-timings update records, they add none).
  EXPECT_EQ(RecordsIn(dir, db), 24);

  // Nothing is left unfinished: the next tune is a new job.
  CliResult next = RunCliIn(dir, TuneArgs(db, 4), absl::Seconds(240));
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(next.json["continued"], false);
  EXPECT_NE(next.json["job"], job);
  EXPECT_THAT(next.err, ::testing::Not(HasSubstr("continuing")));
}

TEST(TuneResumeTest, FreshCancelsTheKilledJobAndStartsAnew) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/tune.db";
  const std::string job = StartAndKill(dir, TuneArgs(db, 400));
  ASSERT_FALSE(job.empty());
  const int64_t kept = RecordsIn(dir, db);

  CliResult fresh = RunCliIn(dir, TuneArgs(db, 4, {"--fresh"}), absl::Seconds(240));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_THAT(fresh.err, ContainsRegex("cancelled the unfinished job " + job + " \\([0-9]+ of 400 trials done"));
  EXPECT_EQ(fresh.json["continued"], false);
  EXPECT_NE(fresh.json["job"], job);
  EXPECT_EQ(fresh.json["trials"], 4);
  // The cancelled job measured no more than what was in flight when it went.
  EXPECT_LE(RecordsIn(dir, db), kept + 4 + 8);
}

}  // namespace
}  // namespace tuneforge::client_test
