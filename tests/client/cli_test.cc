// The `tuneforge` command line, run as a user runs it: a real process, its
// exit code, its stdout (--json) and its one-line errors.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nlohmann/json.hpp"
#include "tests/support/removed_at_exit.h"

namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

struct Result {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string BinDir() {
  const char* d = std::getenv("TF_BIN_DIR");
  return d ? d : "build/bin";
}

Result RunCli(const std::string& args) {
  // One file per process and call: ctest runs these tests in parallel.
  static int calls = 0;
  std::string err_file = std::filesystem::temp_directory_path() /
                         ("tuneforge_cli_test_err." + std::to_string(getpid()) + "." + std::to_string(++calls));
  std::string cmd = BinDir() + "/tuneforge " + args + " 2>" + err_file;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  std::filesystem::remove(err_file);
  return r;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  // Per process: tests of this binary run in parallel under ctest.
  std::string path = std::filesystem::temp_directory_path() / (std::to_string(getpid()) + "." + name);
  std::ofstream(path) << text;
  tuneforge::test_support::RemoveAtExit(path);
  return path;
}

// A tiled, vectorized, parallel schedule for matmul:M=64,N=64,K=32.
const char* kTiledMatmul = R"({"workload": "matmul:M=64,N=64,K=32", "steps": [
  {"kind": "split", "stage": 2, "iter": 0, "lengths": [8], "inner_to_outer": true},
  {"kind": "split", "stage": 2, "iter": 2, "lengths": [16], "inner_to_outer": true},
  {"kind": "reorder", "stage": 2, "order": [0, 2, 4, 1, 3]},
  {"kind": "annotation", "stage": 2, "iter": 0, "annotation": "parallel"},
  {"kind": "annotation", "stage": 2, "iter": 4, "annotation": "vectorize"}]})";

void ExpectOneLineError(const Result& r, const std::string& what) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(what));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "error is not one line: " << r.err;
}

TEST(CliShowTest, JsonHasKeyFlopsAndLoopNest) {
  Result r = RunCli("show matmul:M=64,N=32,K=16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["workload_key"].get<std::string>().size(), 16u);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 2.0 * 64 * 32 * 16);
  EXPECT_THAT(j["loop_nest"].get<std::string>(), HasSubstr("for (k, 0, 16)"));
}

TEST(CliShowTest, SameComputationSameKeyFromSpecAndDefinition) {
  std::string def = WriteFile("cli_matmul.def",
                              "input X: float32[64, 16]\ninput Y: float32[16, 32] constant\n"
                              "Z[a: 64, b: 32] = sum(X[a, r] * Y[r, b], r: 16)\n");
  Result spec = RunCli("show matmul:M=64,N=32,K=16 --json");
  Result file = RunCli("show --def " + def + " --json");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(Json::parse(spec.out)["workload_key"], Json::parse(file.out)["workload_key"]);
}

TEST(CliShowTest, ScheduleShowsStateAndScheduledNest) {
  std::string f = WriteFile("cli_tiled.json", kTiledMatmul);
  Result r = RunCli("show --schedule " + f + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_THAT(j["state"].get<std::string>(), HasSubstr("i.0: 8 spatial parallel"));
  EXPECT_THAT(j["loop_nest"].get<std::string>(), HasSubstr("parallel (i.0, 0, 8)"));
  EXPECT_THAT(j["loop_nest"].get<std::string>(), HasSubstr("ramp("));
}

TEST(CliShowTest, SketchesListTheRulesAndLoopNests) {
  Result r = RunCli("show matmul:M=512,N=512,K=512 --sketches --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json sketches = Json::parse(r.out)["sketches"];
  // Cached and fused at two levels, or tiled alone; B packed or not.
  ASSERT_EQ(sketches.size(), 6u);
  std::string all = sketches.dump();
  EXPECT_THAT(all, HasSubstr("C: add_cache_write"));
  EXPECT_THAT(all, HasSubstr("C.local: add_cache_read"));
  EXPECT_THAT(all, HasSubstr("B.local"));  // the packed copy's loop nest
  EXPECT_THAT(all, HasSubstr("C.local: multi_level_tiling_with_fusion (fused at tile level 1)"));
  EXPECT_THAT(all, HasSubstr("C.local: multi_level_tiling_with_fusion (fused at tile level 2)"));
  EXPECT_THAT(sketches[0]["loop_nest"].get<std::string>(), HasSubstr("k.1"));  // the split reduction
  Result text = RunCli("show relu:N=1,C=8,H=4,W=4 --sketches");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("1 sketches"));
  EXPECT_THAT(text.out, HasSubstr("no rule changed the program"));
}

TEST(CliShowTest, Aarch64AssemblyUsesNeon) {
  std::string f = WriteFile("cli_tiled.json", kTiledMatmul);
  Result r = RunCli("show --schedule " + f + " --target aarch64 --asm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(Json::parse(r.out)["assembly"].get<std::string>(), HasSubstr(".4s"));
}

// A GPU target prints CUDA C: the naive program is bound to blocks of up to
// 256 threads (its padding inlined), a schedule as it binds its loops.
TEST(CliShowTest, CudaTargetPrintsTheNaiveProgramsCudaSource) {
  Result r = RunCli("show conv2d:N=1,C=8,H=14,W=14,K=16,R=3,S=3,pad=1 --target cuda:sm_90 --cuda-source --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_THAT(j["cuda_source"].get<std::string>(), HasSubstr("extern \"C\" __global__"));
  EXPECT_THAT(j["cuda_source"].get<std::string>(), HasSubstr("threadIdx.x"));
  // 16 x 14 x 14 outputs: 13 blocks of 256 threads (the last one partial).
  EXPECT_EQ(j["kernels"][0]["grid"][0], 13);
  EXPECT_EQ(j["kernels"][0]["block"][0], 256);
  Result text = RunCli("show matmul:M=64,N=64,K=64 --target cuda --cuda-source");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("CUDA C for cuda:sm_80, 1 kernel:\n  default_function: grid 16 x 1 x 1, "
                                  "block 256 x 1 x 1"));
  // Softmax's stages are kernels of their own (row maxima, exponentials,
  // row sums, division), which pass their results on in temporaries.
  Result softmax = RunCli("show softmax:M=8,N=33 --target cuda --cuda-source --json");
  ASSERT_EQ(softmax.exit_code, 0) << softmax.err;
  EXPECT_EQ(Json::parse(softmax.out)["kernels"].size(), 4u);
}

// The GPU sketches: SSSRRSRS tiling fused at the thread level, inputs
// copied to shared memory.
TEST(CliShowTest, CudaTargetListsTheGpuSketches) {
  Result r = RunCli("show matmul:M=512,N=512,K=512 --target cuda:sm_90 --sketches --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json sketches = Json::parse(r.out)["sketches"];
  ASSERT_EQ(sketches.size(), 1u);
  std::string all = sketches.dump();
  EXPECT_THAT(all, HasSubstr("multi_level_tiling_with_fusion (fused at tile level 3)"));
  EXPECT_THAT(all, HasSubstr("A: add_shared_cache_read"));
  EXPECT_THAT(sketches[0]["loop_nest"].get<std::string>(), HasSubstr("scope shared"));
}

TEST(CliShowTest, CudaTargetErrorsNameTheFix) {
  ExpectOneLineError(RunCli("show matmul:M=64,N=64,K=64 --target cuda:sm_9x --cuda-source"), "cuda:sm_90");
  ExpectOneLineError(RunCli("show matmul:M=64,N=64,K=64 --cuda-source"), "--target cuda:sm_XX");
  ExpectOneLineError(RunCli("show matmul:M=64,N=64,K=64 --target cuda --asm"), "--cuda-source");
}

TEST(CliShowTest, UnknownOpIsAOneLineErrorListingTheOps) {
  Result r = RunCli("show matmult:M=1");
  ExpectOneLineError(r, "matmult");
  EXPECT_THAT(r.err, HasSubstr("matmul"));
}

TEST(CliShowTest, SpecAndDefinitionTogetherIsAnError) {
  Result r = RunCli("show matmul:M=4,N=4,K=4 --def x.def");
  ExpectOneLineError(r, "not both");
}

TEST(CliShowTest, ErrorsAreJsonWithJsonFlag) {
  Result r = RunCli("show nosuchop:M=1 --json");
  EXPECT_NE(r.exit_code, 0);
  Json j = Json::parse(r.out);
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("nosuchop"));
}

TEST(CliMeasureTest, TiledScheduleIsCorrectAndTimed) {
  std::string f = WriteFile("cli_tiled.json", kTiledMatmul);
  Result r = RunCli("measure --schedule " + f + " --threads 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  Json j = Json::parse(r.out);
  EXPECT_TRUE(j["correct"].get<bool>());
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_GT(j["seconds"].get<double>(), 0);
  EXPECT_GT(j["gflops"].get<double>(), 0);
  EXPECT_GT(j["compile_ms"].get<double>(), 0);
  EXPECT_NEAR(j["gflops"].get<double>() * 1e9 * j["seconds"].get<double>(), 2.0 * 64 * 64 * 32, 1);
}

TEST(CliMeasureTest, NaiveProgramIsCorrect) {
  Result r = RunCli("measure softmax:M=8,N=33 --naive --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Json::parse(r.out)["correct"].get<bool>());
}

TEST(CliMeasureTest, ScheduleForAnotherWorkloadIsRefused) {
  std::string f = WriteFile("cli_tiled.json", kTiledMatmul);
  Result r = RunCli("measure matmul:M=64,N=64,K=64 --schedule " + f);
  // The file has no workload_key; its steps still replay, so the key check
  // needs the key: write one that does not match.
  std::string keyed = WriteFile(
      "cli_keyed.json",
      R"({"workload": "matmul:M=64,N=64,K=32", "workload_key": "0123456789abcdef", "steps": []})");
  r = RunCli("measure matmul:M=64,N=64,K=64 --schedule " + keyed);
  ExpectOneLineError(r, "0123456789abcdef");
}

TEST(CliMeasureTest, NothingToMeasureIsAnError) {
  ExpectOneLineError(RunCli("measure matmul:M=4,N=4,K=4"), "exactly one of --schedule FILE, --naive or --best");
}

TEST(CliMeasureTest, InvalidStepNamesTheStep) {
  std::string f = WriteFile(
      "cli_bad_step.json",
      R"({"workload": "matmul:M=8,N=8,K=8", "steps": [{"kind": "split", "stage": 2, "iter": 9, "lengths": [2], "inner_to_outer": true}]})");
  Result r = RunCli("measure --schedule " + f + " --json");
  EXPECT_NE(r.exit_code, 0);
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["error_kind"], "invalid_schedule");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("split (step 0)"));
}

TEST(CliMeasureTest, MalformedScheduleFileIsAnError) {
  std::string f = WriteFile("cli_malformed.json", R"({"workload": "matmul:M=8,N=8,K=8", "steps": [)");
  ExpectOneLineError(RunCli("measure --schedule " + f), "cli_malformed.json");
}

TEST(CliMeasureTest, BestWithoutRecordStoreSaysSo) {
  ExpectOneLineError(RunCli("measure matmul:M=4,N=4,K=4 --best"), "record store");
}

// LLVM's warnings (here "loop not vectorized" for a vectorize annotation it
// cannot honor; the loop then runs scalar) stay out of the user's terminal.
TEST(CliShowTest, LlvmWarningsAreNotPrinted) {
  std::string schedule = WriteFile("cli_llvm_warning.json", R"({"workload": "matmul:K=1024,M=1024,N=1024", "steps": [
    {"kind": "cache_write", "stage": 2, "scope": "local"},
    {"kind": "compute_root", "stage": 3},
    {"kind": "split", "stage": 3, "iter": 1, "lengths": [8, 434], "inner_to_outer": false},
    {"kind": "follow_split", "stage": 2, "iter": 0, "src_step": 2, "n_split": 1},
    {"kind": "annotation", "stage": 3, "iter": 2, "annotation": "vectorize"},
    {"kind": "reorder", "stage": 3, "order": [3, 2, 0, 1]},
    {"kind": "pragma", "stage": 2, "iter": 0, "auto_unroll_max_step": 64},
    {"kind": "compute_root", "stage": 3},
    {"kind": "reorder", "stage": 2, "order": [3, 0, 2, 1]},
    {"kind": "reorder", "stage": 2, "order": [0, 3, 2, 1]},
    {"kind": "fuse", "stage": 3, "iters": [3]}]})");
  Result r = RunCli("show --schedule " + schedule + " --llvm-ir");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(CliTest, UnknownCommandOrFlagIsAnError) {
  ExpectOneLineError(RunCli("frobnicate"), "tuneforge --help");
  ExpectOneLineError(RunCli("frobnicate"), "unknown command 'frobnicate'; the commands are show, measure, tune");
  ExpectOneLineError(RunCli("show matmul:M=4,N=4,K=4 --no-such-flag"), "--no-such-flag");
}

}  // namespace
