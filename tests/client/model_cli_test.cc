// Whole models from the command line: `tuneforge run --model` on a
// generated model (untuned, then after `tune --model`), its JSON fields and
// output check; a model with ONNX test data checked against it; `submit
// --model` on a real cluster; bad models exit non-zero with their error.
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"
#include "common/te/ndarray.h"
#include "graph/executor/compiled_model.h"
#include "graph/model/model.h"
#include "graph/onnx/import.h"
#include "tests/graph/onnx_builder.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

std::string SaveModel(const std::string& dir, const graph::testing::OnnxBuilder& b, const std::string& name) {
  std::string path = dir + "/" + name + ".onnx";
  EXPECT_TRUE(b.Save(path));
  return path;
}

TEST(ModelCliTest, RunWithoutRecordsUsesUnscheduledKernelsAndSaysSo) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::ResidualBlocks(8, 10, 10), "blocks");
  CliResult r = RunCliIn(dir, {"run", "--model", model, "--runs", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json& j = r.json;
  for (const char* field : {"latency_ms", "tasks", "untuned_tasks", "outputs_checked", "max_abs_error"})
    EXPECT_TRUE(j.contains(field)) << "no '" << field << "' in " << r.out;
  EXPECT_EQ(j["tasks"], 2);
  EXPECT_EQ(j["untuned_tasks"], 2);
  EXPECT_EQ(j["outputs_checked"], true);
  EXPECT_GT(j["latency_ms"].get<double>(), 0);
  EXPECT_EQ(j["records"], "no record database");
  EXPECT_THAT(j["checked_against"].get<std::string>(), HasSubstr("unscheduled reference"));
  // The profile: every task's kernels took time, and together about the
  // latency (they are all of a run's work; medians of separate sums, so
  // loosely), in milliseconds like it.
  double profiled_ms = 0;
  for (const auto& k : j["kernels"]) {
    EXPECT_GT(k["ms"].get<double>(), 0) << k.dump();
    profiled_ms += k["ms"].get<double>();
  }
  EXPECT_LT(profiled_ms, 2 * j["latency_ms"].get<double>() + 0.5) << r.out;
  EXPECT_GT(profiled_ms, 0.25 * j["latency_ms"].get<double>()) << r.out;
}

TEST(ModelCliTest, TuneModelTunesEveryTaskAndRunUsesTheTunedKernels) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::Mlp(4, 32, 64, 10), "mlp");
  std::vector<std::string> args = {"tune", "--model", model, "--trials", "16", "--batch", "4",
                                   "--db", dir + "/m.db", "--json"};
  args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = RunCliIn(dir, args, absl::Seconds(300));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["trials"], 16);
  EXPECT_EQ(t.json["outputs_checked"], true);
  const int tasks = t.json["tasks"].get<int>();
  EXPECT_GE(tasks, 4);  // three dense layers (two share no shape) and the softmax
  // Every task got trials from the gradient scheduler's warm-up round.
  EXPECT_EQ(t.json["untuned_tasks"], 0) << t.out;
  EXPECT_THAT(t.err, HasSubstr("est. end-to-end"));

  CliResult r = RunCliIn(dir, {"run", "--model", model, "--db", dir + "/m.db", "--runs", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["tasks"], tasks);
  EXPECT_EQ(r.json["untuned_tasks"], 0);
  EXPECT_EQ(r.json["outputs_checked"], true);
  for (const auto& k : r.json["kernels"]) EXPECT_EQ(k["tuned"], true) << k.dump();
}

// `--conv-algorithm winograd` tunes the 3x3 convs' Winograd form; `run`
// then runs it (the only form with records), with outputs that match.
TEST(ModelCliTest, TuneModelWithWinogradTunesAndRunsTheWinogradConvs) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::ResidualBlocks(8, 10, 10), "blocks");
  std::vector<std::string> args = {"tune", "--model", model, "--conv-algorithm", "winograd", "--trials", "8",
                                   "--batch", "4", "--policy", "random", "--db", dir + "/m.db", "--json"};
  args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = RunCliIn(dir, args, absl::Seconds(300));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["outputs_checked"], true) << t.out;
  CliResult r = RunCliIn(dir, {"run", "--model", model, "--db", dir + "/m.db", "--runs", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["untuned_tasks"], 0) << r.out;
  EXPECT_EQ(r.json["outputs_checked"], true) << r.out;
  ASSERT_EQ(r.json["kernels"].size(), 2u) << r.out;
  for (const auto& k : r.json["kernels"])
    EXPECT_THAT(k["name"].get<std::string>(), HasSubstr("conv2d_winograd+bias")) << k.dump();

  CliResult unknown = RunCliIn(dir, {"tune", "--model", model, "--conv-algorithm", "fft", "--trials", "4"});
  ExpectOneLineError(unknown, "--conv-algorithm is 'fft'; give direct, winograd or auto");
}

// `--conv-algorithm auto` tunes both forms of every 3x3 conv task in one
// job: each form gets records of its own, and the model runs, every conv in
// whichever form has the faster record, with outputs that match.
TEST(ModelCliTest, TuneModelWithAutoTunesBothFormsOfEachConv) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::ResidualBlocks(8, 10, 10), "blocks");
  const std::string db = dir + "/m.db";
  std::vector<std::string> args = {"tune", "--model", model, "--conv-algorithm", "auto", "--trials", "16",
                                   "--batch", "4", "--policy", "random", "--db", db, "--json"};
  args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = RunCliIn(dir, args, absl::Seconds(300));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["trials"], 16);
  EXPECT_EQ(t.json["outputs_checked"], true) << t.out;
  EXPECT_EQ(t.json["tasks"], 2) << t.out;  // the model's: a form is not a task of its own
  EXPECT_EQ(t.json["untuned_tasks"], 0) << t.out;

  // Records of four workloads: both convs, each in both forms.
  CliResult exported = RunCliIn(dir, {"export", "--db", db});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::set<std::string> direct, winograd;
  std::istringstream lines(exported.out);
  for (std::string line; std::getline(lines, line);) {
    const std::string workload = nlohmann::json::parse(line)["workload"];
    (workload.starts_with("conv2d_winograd+") ? winograd : direct).insert(workload);
  }
  EXPECT_EQ(direct.size(), 2u) << exported.out;
  EXPECT_EQ(winograd.size(), 2u) << exported.out;

  CliResult r = RunCliIn(dir, {"run", "--model", model, "--db", db, "--runs", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["untuned_tasks"], 0) << r.out;
  EXPECT_EQ(r.json["outputs_checked"], true) << r.out;
}

// A `tune --model` killed mid-run leaves its job unfinished; the same
// command continues it rather than tuning a second job beside it (the
// embedded server resumes the old one on start either way).
TEST(ModelCliTest, TheSameModelTuneContinuesTheKilledJob) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::Mlp(4, 32, 64, 10), "mlp");
  auto tune = [&](const std::string& trials) {
    std::vector<std::string> args = {"tune", "--model", model, "--trials", trials, "--batch", "4",
                                     "--db", dir + "/m.db", "--json"};
    args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
    return args;
  };
  absl::StatusOr<std::unique_ptr<ChildProcess>> first = StartCli(dir, tune("400"));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::string> job =
      (*first)->WaitForOutput(std::regex("job ([^ ]+): tuning"), absl::Seconds(60));
  ASSERT_TRUE(job.ok()) << (*first)->OutputTail();
  ASSERT_TRUE((*first)->WaitForOutput(std::regex("round 1: "), absl::Seconds(120)).ok()) << (*first)->OutputTail();
  (*first)->KillAndReap();

  // The continued job keeps its own 400 trials: stop it once it says so.
  absl::StatusOr<std::unique_ptr<ChildProcess>> again = StartCli(dir, tune("8"));
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<std::string> continued =
      (*again)->WaitForOutput(std::regex("continuing job ([^,]+), which an earlier 'tuneforge tune' of this model"),
                              absl::Seconds(60));
  (*again)->KillAndReap();
  ASSERT_TRUE(continued.ok()) << (*again)->OutputTail();
  EXPECT_EQ(*continued, *job);
}

TEST(ModelCliTest, AnAttentionBlockTunesEndToEndAndItsOutputsMatch) {
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::AttentionBlock(8, 16, 2), "attention");
  // The random policy: this test is about the model's path, not the search.
  std::vector<std::string> args = {"tune", "--model", model, "--trials", "24", "--batch", "8",
                                   "--policy", "random", "--db", dir + "/a.db", "--json"};
  args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = RunCliIn(dir, args, absl::Seconds(400));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["outputs_checked"], true) << t.out;
  EXPECT_GT(t.json["tasks"].get<int>(), 5);
  EXPECT_LT(t.json["untuned_tasks"].get<int>(), t.json["tasks"].get<int>());
  EXPECT_LT(t.json["max_abs_error"].get<double>(), 1e-3);
}

TEST(ModelCliTest, RunChecksAgainstTheModelsTestDataWhenItsFolderHasSome) {
  const std::string model = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "libonnx-testdata is not installed";
  CliResult r = RunCliIn(MakeTempDir(), {"run", "--model", model, "--runs", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["outputs_checked"], true);
  EXPECT_THAT(r.json["checked_against"].get<std::string>(), HasSubstr("test data"));
  EXPECT_EQ(r.json["model"], "test_conv_with_strides_padding");
}

TEST(ModelCliTest, BadModelsExitNonZeroWithTheirError) {
  std::string dir = MakeTempDir();
  std::ofstream(dir + "/junk.onnx") << "not a model at all";
  CliResult junk = RunCliIn(dir, {"run", "--model", dir + "/junk.onnx"});
  ExpectOneLineError(junk, "is not an ONNX model");

  std::string good = graph::testing::Mlp().Bytes();
  std::ofstream(dir + "/cut.onnx", std::ios::binary) << good.substr(0, good.size() / 2);
  CliResult cut = RunCliIn(dir, {"run", "--model", dir + "/cut.onnx"});
  EXPECT_NE(cut.exit_code, 0);

  graph::testing::OnnxBuilder unsupported;
  unsupported.Input("x", {1, 4}).Node("Hardmax", {"x"}, {"y"}).Output("y", {1, 4});
  std::string path = SaveModel(dir, unsupported, "hardmax");
  CliResult r = RunCliIn(dir, {"tune", "--model", path, "--trials", "4"});
  ExpectOneLineError(r, "node 'y' (Hardmax): this op is not supported");

  CliResult missing = RunCliIn(dir, {"run", "--model", dir + "/nowhere.onnx"});
  ExpectOneLineError(missing, "cannot open the model");

  CliResult both = RunCliIn(dir, {"tune", "matmul:M=8,N=8,K=8", "--model", SaveModel(dir, graph::testing::Mlp(), "mlp")});
  ExpectOneLineError(both, "give the model or workloads");
}

// Runs `cmd` through the shell; its exit code.
int Shell(const std::string& cmd) { return std::system(cmd.c_str()); }

TEST(ModelCliTest, CompiledModelRunsFromACProgramWithoutTuneforge) {
  std::string dir = MakeTempDir();
  graph::testing::OnnxBuilder blocks = graph::testing::ResidualBlocks(8, 10, 10);
  std::string model = SaveModel(dir, blocks, "blocks");
  // Tune a little first so that the library holds tuned kernels too.
  std::vector<std::string> tune = {"tune", "--model", model, "--trials", "8", "--batch", "4", "--policy", "random",
                                   "--db", dir + "/m.db"};
  tune.insert(tune.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  ASSERT_EQ(RunCliIn(dir, tune, absl::Seconds(300)).exit_code, 0);
  CliResult c = RunCliIn(dir, {"compile", "--model", model, "--out", dir + "/lib", "--name", "model", "--db",
                               dir + "/m.db", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err << c.out;
  EXPECT_EQ(c.json["tasks"], 2);
  EXPECT_EQ(c.json["untuned_tasks"], 0);
  ASSERT_TRUE(std::filesystem::exists(dir + "/lib/libmodel.so"));
  ASSERT_TRUE(std::filesystem::exists(dir + "/lib/model.h"));

  std::string main_c = std::string(TF_TEST_DATA_DIR) + "/compiled_model/main.c";
  ASSERT_EQ(Shell("cc -O1 -o " + dir + "/prog " + main_c + " -I" + dir + "/lib -L" + dir + "/lib -lmodel -Wl,-rpath," +
                  dir + "/lib"),
            0);
  // The same input through the program and through tuneforge's executor.
  auto imported = graph::ImportOnnxModel(blocks.model());
  ASSERT_TRUE(imported.ok()) << imported.status();
  auto built = graph::BuildModel(*std::move(imported), "blocks");
  ASSERT_TRUE(built.ok()) << built.status();
  auto reference = graph::CompiledModel::Compile(*built, nullptr);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const graph::Value& in = built->graph.values[built->graph.inputs[0]];
  auto x = te::NDArray::Empty(in.dtype, in.shape);
  x->FillRandom(3);
  std::ofstream(dir + "/x.bin", std::ios::binary).write(static_cast<const char*>(x->data()), x->nbytes());
  ASSERT_EQ(Shell(dir + "/prog " + dir + "/x.bin " + dir + "/y.bin"), 0);
  std::vector<te::NDArray> inputs;
  inputs.push_back(*std::move(x));
  auto want = (*reference)->Run(inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = te::NDArray::Empty(want->front().dtype(), want->front().shape());
  std::ifstream(dir + "/y.bin", std::ios::binary).read(static_cast<char*>(got->data()), got->nbytes());
  auto cmp = te::Compare(*got, want->front());
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_TRUE(cmp->ok) << cmp->Summary();
  // Nothing of tuneforge is linked: only libc, libm, libstdc++ and the like.
  EXPECT_EQ(Shell("ldd " + dir + "/lib/libmodel.so | grep -q -i tuneforge"), 256);
}

TEST(ModelCliTest, SubmitModelRunsOnAClusterAndStatusShowsEachTask) {
  auto cluster = service_test::Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_TRUE((*cluster)->StartWorker().ok());
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::ResidualBlocks(8, 6, 6), "blocks");
  std::vector<std::string> args = {"submit", "--model", model, "--trials", "16", "--batch", "4", "--policy", "random"};
  args.insert(args.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult s = (*cluster)->RunCliOnServer(args);
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  std::string job = s.json["job"].get<std::string>();
  CliResult w = (*cluster)->RunCliOnServer({"watch", job}, absl::Seconds(180));
  ASSERT_EQ(w.exit_code, 0) << w.err << w.out;
  CliResult st = (*cluster)->RunCliOnServer({"status", job});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_EQ(st.json["task_scheduler"], "gradient");
  ASSERT_EQ(st.json["tasks"].size(), 2u) << st.out;
  for (const auto& t : st.json["tasks"]) {
    EXPECT_EQ(t["weight"], 2.0) << t.dump();
    EXPECT_GT(t["trials"].get<int>(), 0) << t.dump();
  }
  // tune --model against the cluster: it runs the model with the server's
  // records afterwards (the job above tuned the same tasks).
  std::vector<std::string> tune = {"tune", "--model", model, "--trials", "8", "--batch", "4", "--policy", "random"};
  tune.insert(tune.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = (*cluster)->RunCliOnServer(tune, absl::Seconds(180));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["untuned_tasks"], 0) << t.out;
  EXPECT_EQ(t.json["outputs_checked"], true);
  EXPECT_THAT(t.json["records"].get<std::string>(), HasSubstr("server"));
}

// Droplet under the task scheduler: each task has its own policy (Ansor's
// search for that task's first --droplet-after trials, then the descent from
// its best); the job runs to its budget with every task tuned, and the model
// runs with what they found. The descent itself is DropletPolicyTest's.
TEST(ModelCliTest, SubmitModelWithDropletTunesEveryTaskAndTheModelRuns) {
  auto cluster = service_test::Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_TRUE((*cluster)->StartWorker().ok());
  std::string dir = MakeTempDir();
  std::string model = SaveModel(dir, graph::testing::ResidualBlocks(8, 6, 6), "blocks");
  // Three repeats: the descent's significance test needs a spread.
  CliResult s = (*cluster)->RunCliOnServer({"submit", "--model", model, "--trials", "32", "--batch", "4", "--policy",
                                            "droplet", "--droplet-after", "4", "--repeat", "3", "--number", "1",
                                            "--min-repeat-ms", "1", "--threads", "1"});
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  EXPECT_EQ(s.json["policy"], "droplet");
  EXPECT_EQ(s.json["droplet_after"], 4);
  std::string job = s.json["job"].get<std::string>();
  CliResult w = (*cluster)->RunCliOnServer({"watch", job}, absl::Seconds(240));
  ASSERT_EQ(w.exit_code, 0) << w.err << w.out;
  CliResult st = (*cluster)->RunCliOnServer({"status", job});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_EQ(st.json["trials_done"], 32);
  ASSERT_EQ(st.json["tasks"].size(), 2u) << st.out;
  int past_ansor_phase = 0;
  for (const auto& t : st.json["tasks"]) {
    EXPECT_GT(t["trials"].get<int>(), 0) << t.dump();
    EXPECT_FALSE(t["best_ms"].is_null()) << t.dump();
    past_ansor_phase += t["trials"].get<int>() > 4;
  }
  EXPECT_GE(past_ansor_phase, 1) << "no task got past its Ansor phase: " << st.out;
  // The model runs on the server's records, every task tuned, outputs checked.
  std::vector<std::string> tune = {"tune", "--model", model, "--trials", "4", "--batch", "4", "--policy", "droplet",
                                   "--droplet-after", "4"};
  tune.insert(tune.end(), kQuickMeasure.begin(), kQuickMeasure.end());
  CliResult t = (*cluster)->RunCliOnServer(tune, absl::Seconds(180));
  ASSERT_EQ(t.exit_code, 0) << t.err << t.out;
  EXPECT_EQ(t.json["untuned_tasks"], 0) << t.out;
  EXPECT_EQ(t.json["outputs_checked"], true);
}

}  // namespace
}  // namespace tuneforge::client_test
