// The cluster commands against a real tuneforge-server and tuneforge-worker
// on 127.0.0.1 with a temporary database: submit, watch, status, jobs,
// cancel, best (through the server and straight from the file), workers,
// and tune --server.
#include <fstream>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using service_test::Cluster;
using service_test::kTestDeviceKey;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

class ClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
  }

  Cluster& c() { return *cluster_; }
  std::vector<std::string> ServerFlags() {
    return {"--server", c().address(), "--token-file", c().token_file()};
  }

  // Submits through the CLI (no --device-key: the one key of the workers).
  std::string SubmitJob(int trials, int batch) {
    CliResult r = c().RunCliOnServer(With({"submit", kMatmul32, "--trials", std::to_string(trials),
                                           "--batch", std::to_string(batch)},
                                          kQuickMeasure));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (!r.json.is_object()) {
      ADD_FAILURE() << "submit printed no JSON: " << r.out;
      return "";
    }
    EXPECT_EQ(r.json["trials_total"], trials);
    EXPECT_EQ(r.json["device_key"], kTestDeviceKey);
    EXPECT_THAT(r.json["state"].get<std::string>(), ContainsRegex("^(queued|running|done)$"));
    EXPECT_TRUE(r.json["best_gflops"].is_number());
    EXPECT_TRUE(r.json["trials_done"].is_number_integer());
    return r.json["job"].get<std::string>();
  }

  std::unique_ptr<Cluster> cluster_;
};

TEST_F(ClusterCliTest, SubmitWatchStatusAndBestThroughServerAndDatabase) {
  ASSERT_TRUE(c().StartWorker().ok());
  std::string job = SubmitJob(12, 4);
  ASSERT_FALSE(job.empty());

  // watch, text: a progress line per update, then the finished job.
  CliResult watch = c().RunCli(With({"watch", job}, ServerFlags()), absl::Seconds(90));
  ASSERT_EQ(watch.exit_code, 0) << watch.err << watch.out;
  EXPECT_THAT(watch.out, ContainsRegex("round [0-9]+: [0-9]+/12 trials"));
  EXPECT_THAT(watch.out, HasSubstr("round 3: 12/12 trials, best "));
  EXPECT_THAT(watch.out, ContainsRegex("job " + job + " +done +12/12 trials"));

  // watch --json of a finished job: one object, the final state.
  CliResult watched = c().RunCliOnServer({"watch", job});
  ASSERT_EQ(watched.exit_code, 0) << watched.err;
  ASSERT_TRUE(watched.json.is_object()) << watched.out;
  EXPECT_EQ(watched.json["state"], "done");

  CliResult status = c().RunCliOnServer({"status", job});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.json["job"], job);
  EXPECT_EQ(status.json["state"], "done");
  EXPECT_EQ(status.json["trials_done"], 12);
  double job_best = status.json["best_gflops"].get<double>();
  EXPECT_GT(job_best, 0);

  CliResult best = c().RunCliOnServer({"best", kMatmul32});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  ASSERT_TRUE(best.json.is_object()) << best.out;
  EXPECT_TRUE(best.json["found"].get<bool>());
  EXPECT_EQ(best.json["target"], kTestDeviceKey);
  EXPECT_NEAR(best.json["gflops"].get<double>(), job_best, 1e-6 * job_best);
  EXPECT_NEAR(best.json["gflops"].get<double>() * 1e9 * best.json["seconds"].get<double>(), kMatmul32Flops,
              1e-3 * kMatmul32Flops);
  ASSERT_TRUE(best.json["schedule"].is_object()) << best.out;
  EXPECT_TRUE(best.json["schedule"]["steps"].is_array());
  EXPECT_EQ(best.json["job"], job);

  // Straight from the database file (readable while the server runs).
  CliResult from_db = c().RunCli({"best", kMatmul32, "--target", kTestDeviceKey, "--db",
                                  c().db_path(), "--json"});
  ASSERT_EQ(from_db.exit_code, 0) << from_db.err;
  EXPECT_EQ(from_db.json["schedule"], best.json["schedule"]);
  EXPECT_DOUBLE_EQ(from_db.json["gflops"].get<double>(), best.json["gflops"].get<double>());

  // Another device has no record: an answer, not an error.
  CliResult none = c().RunCli({"best", kMatmul32, "--target", "aarch64-neon-4c", "--db", c().db_path()});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.out, HasSubstr("no correct record for matmul:K=32,M=32,N=32"));
  CliResult none_json = c().RunCliOnServer({"best", kMatmul32, "--target", "aarch64-neon-4c"});
  ASSERT_EQ(none_json.exit_code, 0) << none_json.err;
  EXPECT_FALSE(none_json.json["found"].get<bool>());
  EXPECT_TRUE(none_json.json["schedule"].is_null());

  // The best schedule re-measured on this machine is correct.
  CliResult measured = c().RunCli({"measure", kMatmul32, "--best", "--db", c().db_path(), "--repeat",
                                   "1", "--min-repeat-ms", "1", "--json"});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  EXPECT_TRUE(measured.json["correct"].get<bool>());
  EXPECT_EQ(measured.json["best_record"]["target"], kTestDeviceKey);
  EXPECT_EQ(measured.json["best_record"]["job"], job);
}

TEST_F(ClusterCliTest, WorkersListsTheWorkerWithItsDeviceKey) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer({"workers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.json["workers"].is_array()) << r.out;
  ASSERT_EQ(r.json["workers"].size(), 1u);
  const nlohmann::json& w = r.json["workers"][0];
  EXPECT_EQ(w["id"], c().worker(0).id);
  EXPECT_EQ(w["device_key"], kTestDeviceKey);
  EXPECT_EQ(w["kind"], "cpu");
  EXPECT_EQ(w["state"], "alive");
  EXPECT_EQ(w["leases"], 0);
  CliResult text = c().RunCli(With({"workers"}, ServerFlags()));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, ContainsRegex(c().worker(0).id + " +" + kTestDeviceKey + " +cpu +alive"));
}

TEST_F(ClusterCliTest, CancelStopsARunningJob) {
  ASSERT_TRUE(c().StartWorker().ok());
  // Long enough that it is still running when cancelled.
  CliResult submitted = c().RunCliOnServer({"submit", kMatmul32, "--trials", "5000", "--batch", "4",
                                            "--min-repeat-ms", "20", "--name", "to-cancel"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  std::string job = submitted.json["job"];
  ASSERT_TRUE(c().WaitForTrials(job, 1, absl::Seconds(60)).ok());

  CliResult jobs = c().RunCliOnServer({"jobs", "--state", "running"});
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  ASSERT_EQ(jobs.json["jobs"].size(), 1u) << jobs.out;
  EXPECT_EQ(jobs.json["jobs"][0]["job"], job);
  EXPECT_EQ(jobs.json["jobs"][0]["name"], "to-cancel");

  CliResult cancel = c().RunCliOnServer({"cancel", job});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.json["state"], "cancelled");
  EXPECT_LT(cancel.json["trials_done"].get<int>(), 5000);

  CliResult status = c().RunCliOnServer({"status", job});
  EXPECT_EQ(status.json["state"], "cancelled");
  // Watching a cancelled job says so, with a non-zero exit.
  CliResult watch = c().RunCli(With({"watch", job}, ServerFlags()));
  ExpectOneLineError(watch, "was cancelled after");
  // A finished job cannot be cancelled again.
  ExpectOneLineError(c().RunCli(With({"cancel", job}, ServerFlags())), job);
}

TEST_F(ClusterCliTest, TuneWithServerSubmitsAndWatches) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer(
      With({"tune", kMatmul32, "--trials", "8", "--batch", "4"}, kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.json.is_object()) << r.out;
  EXPECT_EQ(r.json["trials"], 8);
  EXPECT_EQ(r.json["target"], kTestDeviceKey);
  EXPECT_GT(r.json["best_gflops"].get<double>(), 0);
  EXPECT_TRUE(r.json["best_schedule"].is_object());
  EXPECT_THAT(r.err, HasSubstr("round 2: 8/8 trials, best "));
  CliResult status = c().RunCliOnServer({"status", r.json["job"]});
  EXPECT_EQ(status.json["state"], "done");
}

TEST_F(ClusterCliTest, SubmitDefinitionFileSendsItsText) {
  ASSERT_TRUE(c().StartWorker().ok());
  // The server never sees this path: the CLI sends the text.
  std::string def = c().dir() + "/my_matmul.def";
  std::ofstream(def) << "input X: float32[32, 32]\ninput Y: float32[32, 32] constant\n"
                        "Z[a: 32, b: 32] = sum(X[a, r] * Y[r, b], r: 32)\n";
  CliResult r = c().RunCliOnServer(With({"submit", "--def", def, "--trials", "4"}, kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["workloads"][0], "def:my_matmul");
  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(r.json["job"], absl::Seconds(60));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  // Same computation as the spec: the same workload key finds its best.
  CliResult best = c().RunCliOnServer({"best", kMatmul32});
  EXPECT_TRUE(best.json["found"].get<bool>()) << best.out;
}

// A job of two workloads, as a model's layers are: the gradient scheduler
// shares its rounds, and status shows each workload's trials, best, weight
// and share of the estimated end-to-end latency.
TEST_F(ClusterCliTest, SeveralWorkloadsShowTheirOwnProgress) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer(With({"submit", kMatmul32, "matmul:M=16,N=16,K=16", "--trials", "12",
                                         "--batch", "4", "--policy", "random", "--task-scheduler", "gradient",
                                         "--weights", "3,1"},
                                        kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["task_scheduler"], "gradient");
  const std::string job = r.json["job"];
  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(job, absl::Seconds(60));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();

  CliResult status = c().RunCliOnServer({"status", job});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json& tasks = status.json["tasks"];
  ASSERT_EQ(tasks.size(), 2u) << status.out;
  EXPECT_EQ(tasks[0]["workload"], "matmul:K=32,M=32,N=32");
  EXPECT_EQ(tasks[0]["weight"], 3.0);
  EXPECT_EQ(tasks[1]["weight"], 1.0);
  EXPECT_EQ(tasks[0]["trials"].get<int>() + tasks[1]["trials"].get<int>(), 12);
  double estimated = 0, shares = 0;
  for (const nlohmann::json& t : tasks) {
    ASSERT_TRUE(t["best_ms"].is_number()) << status.out;
    estimated += t["weight"].get<double>() * t["best_ms"].get<double>();
    shares += t["share"].get<double>();
  }
  EXPECT_NEAR(status.json["estimated_latency_ms"].get<double>(), estimated, 1e-9 * estimated);
  EXPECT_NEAR(shares, 1.0, 1e-9);

  CliResult text = c().RunCli({"status", job, "--server", c().address(), "--token-file", c().token_file()});
  EXPECT_THAT(text.out, ContainsRegex("estimated end-to-end latency [0-9.e+-]+ ms"));
  EXPECT_THAT(text.out, ContainsRegex("matmul:K=16,M=16,N=16 +[0-9]+ trials +best +[0-9.e+-]+ ms +weight 1 "
                                      "+share +[0-9.]+%"));

  CliResult bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--task-scheduler", "annealing"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("round-robin, gradient"));
  bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--weights", "1,2"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("2 weights for 1 workloads"));
}

// Learned sketch selection and learned mutation choice are job options: the
// job runs with them to the end and says so; a wrong name, or one for
// random search, is refused.
TEST_F(ClusterCliTest, AJobCanSpreadItsRoundsOverSketchesByTheBandit) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer(With({"submit", kMatmul32, "--trials", "12", "--batch", "4", "--sketch-selection",
                                         "learned", "--mutation-choice", "learned"},
                                        kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["sketch_selection"], "learned");
  EXPECT_EQ(r.json["mutation_choice"], "learned");
  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(r.json["job"], absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), 12);
  CliResult best = c().RunCliOnServer({"best", kMatmul32});
  EXPECT_TRUE(best.json["found"].get<bool>()) << best.out;

  CliResult bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--sketch-selection", "bandit"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("known: uniform (Ansor's, the default), learned"));
  bad = c().RunCliOnServer(
      {"submit", kMatmul32, "--trials", "4", "--policy", "random", "--sketch-selection", "learned"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("--policy ansor"));
  bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--mutation-choice", "bandit"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("known: fixed (Ansor's weights, the default), learned"));
  bad = c().RunCliOnServer(
      {"submit", kMatmul32, "--trials", "4", "--policy", "random", "--mutation-choice", "learned"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("random search mutates nothing"));
  CliResult plain = c().RunCliOnServer({"status", r.json["job"].get<std::string>()});
  EXPECT_EQ(plain.json["mutation_choice"], "learned");
}

// Droplet: Ansor's search for the first trials, then coordinate descent
// from the best program; the job runs to its budget either way.
TEST_F(ClusterCliTest, AJobCanDescendFromItsBestProgramWithDroplet) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer(
      {"submit", kMatmul32, "--trials", "16", "--batch", "4", "--policy", "droplet", "--droplet-after", "8",
       // Three repeats: the descent's significance test needs a spread.
       "--repeat", "3", "--number", "1", "--min-repeat-ms", "1", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["policy"], "droplet");
  EXPECT_EQ(r.json["droplet_after"], 8);
  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(r.json["job"], absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), 16);
  CliResult best = c().RunCliOnServer({"best", kMatmul32});
  EXPECT_TRUE(best.json["found"].get<bool>()) << best.out;

  CliResult bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--droplet-after", "8"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("--policy droplet"));
  bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--policy", "droplet", "--droplet-after", "-3"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("--droplet-after is -3"));
  bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--policy", "drop"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("known: ansor (the default), droplet, random"));
}

// The ansor policy's share of each round around its best program is a job
// option: 0 runs Ansor's search alone to the end; unset, the job says it
// has the default; a share outside [0, 1], or one for random search, is
// refused.
TEST_F(ClusterCliTest, AJobChoosesTheShareOfItsRoundsAroundTheBestProgram) {
  ASSERT_TRUE(c().StartWorker().ok());
  CliResult r = c().RunCliOnServer(
      With({"submit", kMatmul32, "--trials", "12", "--batch", "4", "--neighbour-share", "0"}, kQuickMeasure));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["neighbour_share"], 0.0);
  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(r.json["job"], absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), 12);
  CliResult status = c().RunCliOnServer({"status", r.json["job"].get<std::string>()});
  EXPECT_EQ(status.json["neighbour_share"], 0.0);

  CliResult plain = c().RunCliOnServer(With({"submit", kMatmul32, "--trials", "4", "--batch", "4"}, kQuickMeasure));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.json["neighbour_share"], 0.125);
  CliResult droplet = c().RunCliOnServer(With(
      {"submit", kMatmul32, "--trials", "4", "--policy", "droplet", "--neighbour-share", "0.5"}, kQuickMeasure));
  ASSERT_EQ(droplet.exit_code, 0) << droplet.err;
  EXPECT_EQ(droplet.json["neighbour_share"], 0.5) << "droplet's Ansor phase takes it too";

  CliResult bad = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--neighbour-share", "1.5"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("--neighbour-share is 1.5; give a share"));
  bad = c().RunCliOnServer(
      {"submit", kMatmul32, "--trials", "4", "--policy", "random", "--neighbour-share", "0.25"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.json["error"].get<std::string>(), HasSubstr("random search has none"));
  CliResult random = c().RunCliOnServer(With({"submit", kMatmul32, "--trials", "4", "--policy", "random"}, kQuickMeasure));
  ASSERT_EQ(random.exit_code, 0) << random.err;
  EXPECT_TRUE(random.json["neighbour_share"].is_null());
}

}  // namespace
}  // namespace tuneforge::client_test
