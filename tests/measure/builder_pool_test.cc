// Builds in child processes: the same kernels as an in-process build, a
// compile past its deadline or a killed builder costs one candidate (and a
// restarted child), bad requests are errors that name the problem.
#include "measure/builder_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/workload.h"
#include "measure/build_service.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

using ::testing::HasSubstr;
using schedule::AnnotationStep;
using schedule::IterAnnotation;
using schedule::SplitStep;

constexpr char kSpec[] = "matmul:M=64,N=64,K=64";

ChildConfig Config() { return RunnerChildConfig(MeasureOptions{}); }

te::ComputeDagPtr Dag(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  return w->dag;
}

// Split j by 16 and vectorize it: a small, quick compile.
std::vector<schedule::Step> Vectorized() {
  return {SplitStep{2, 1, {16}, true}, AnnotationStep{2, 2, IterAnnotation::kVectorize}};
}

// A matmul of 8 x 1024 x 1000 with i and k unrolled and j one 1024-lane
// vector: 8,008 statements, under the builder's size limit, but over a
// second of LLVM time (1.2 s on a 2-core Zen 3).
constexpr char kSlowSpec[] = "matmul:M=8,N=1024,K=1000";
std::vector<schedule::Step> SlowToCompile() {
  return {AnnotationStep{2, 0, IterAnnotation::kUnroll}, AnnotationStep{2, 1, IterAnnotation::kVectorize},
          AnnotationStep{2, 2, IterAnnotation::kUnroll}};
}

BuildRequest Request(const std::string& spec, const std::vector<schedule::Step>& steps) {
  return MakeBuildRequest(WorkloadSource::Spec(spec), Dag(spec)->workload_key(), steps, codegen::Target::Host());
}

TEST(BuilderPoolTest, BuildsWhatAnInProcessBuildBuildsAndTheKernelIsCorrect) {
  BuilderPool pool(Config(), 2, 60);
  std::vector<BuiltKernel> built = pool.Build({Request(kSpec, {}), Request(kSpec, Vectorized())});
  ASSERT_EQ(built.size(), 2u);
  for (const BuiltKernel& k : built) {
    ASSERT_TRUE(k.ok()) << k.error;
    EXPECT_FALSE(k.object.object.empty());
    EXPECT_GT(k.build_ms, 0);
  }
  BuiltKernel here = BuildSchedule(Dag(kSpec), Vectorized(), codegen::Target::Host());
  ASSERT_TRUE(here.ok()) << here.error;
  EXPECT_EQ(built[1].args, here.args);
  EXPECT_EQ(built[1].object.symbol, here.object.symbol);
  EXPECT_EQ(built[1].object.triple, here.object.triple);
  // The child's object runs and matches the child's reference.
  absl::StatusOr<std::unique_ptr<Measurer>> m = Measurer::Create(codegen::Target::Host());
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureResult r = (*m)->MeasureBuilt(*Dag(kSpec), built[0], {built[1]}).front();
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.correct);
  EXPECT_LE(pool.starts(), 2);
}

TEST(BuilderPoolTest, ACompilePastTheDeadlineCostsOnlyItsCandidate) {
  BuilderPool pool(Config(), 1, 0.2);
  // One child builds all three in order: the second one overruns.
  std::vector<BuiltKernel> built =
      pool.Build({Request(kSpec, Vectorized()), Request(kSlowSpec, SlowToCompile()), Request(kSpec, {})});
  ASSERT_TRUE(built[0].ok()) << built[0].error;
  EXPECT_EQ(built[1].error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(built[1].error, HasSubstr("did not finish within 0.2 s"));
  EXPECT_LT(built[1].build_ms, 1000);  // killed, not waited for
  EXPECT_TRUE(built[2].ok()) << built[2].error;
  EXPECT_EQ(pool.starts(), 2);  // the overrunning child was replaced
  // Given the time, the same program builds.
  BuilderPool patient(Config(), 1, 600);
  BuiltKernel slow = patient.Build({Request(kSlowSpec, SlowToCompile())})[0];
  EXPECT_TRUE(slow.ok()) << slow.error;
  EXPECT_GT(slow.build_ms, 200);
}

TEST(BuilderPoolTest, ARequestsOwnDeadlineShortensThePoolsTimeoutButNeverLengthensIt) {
  BuilderPool pool(Config(), 1, 60);
  std::vector<BuiltKernel> built = pool.Build(
      {Request(kSpec, Vectorized()), Request(kSlowSpec, SlowToCompile()), Request(kSpec, {})},
      [] { return false; }, {0, 0.2, 30});
  ASSERT_TRUE(built[0].ok()) << built[0].error;
  EXPECT_EQ(built[1].error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(built[1].error, HasSubstr("did not finish within 0.2 s (the task's build deadline)"));
  EXPECT_TRUE(built[2].ok()) << built[2].error;
  // A deadline past the pool's timeout: the timeout holds.
  BuilderPool strict(Config(), 1, 0.2);
  BuiltKernel k = strict.Build({Request(kSlowSpec, SlowToCompile())}, [] { return false; }, {600})[0];
  EXPECT_EQ(k.error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(k.error, HasSubstr("did not finish within 0.2 s (build timeout)"));
}

TEST(BuilderPoolTest, ABuilderKilledMidCompileIsThatCandidatesCompileError) {
  BuilderProcess builder(Config());
  ASSERT_TRUE(builder.Build(Request(kSpec, {}), 60).ok());  // started and warm
  const pid_t pid = builder.pid();
  ASSERT_GT(pid, 0);
  std::thread killer([pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(pid, SIGKILL);
  });
  BuiltKernel k = builder.Build(Request(kSlowSpec, SlowToCompile()), 600);
  killer.join();
  EXPECT_EQ(k.error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(k.error, HasSubstr("the compiler died (SIGKILL"));
  EXPECT_TRUE(builder.Build(Request(kSpec, Vectorized()), 60).ok());
  EXPECT_EQ(builder.starts(), 2);
}

TEST(BuilderPoolTest, BadRequestsAreErrorsThatNameTheProblem) {
  BuilderPool pool(Config(), 1, 60);
  BuildRequest wrong_key = Request(kSpec, {});
  wrong_key.set_workload_key("0123456789abcdef");
  BuildRequest bad_spec = Request(kSpec, {});
  bad_spec.set_spec("matmul:M=64");
  BuildRequest bad_steps = Request(kSpec, {SplitStep{2, 7, {4}, true}});
  BuildRequest bad_target = Request(kSpec, {});
  bad_target.set_target("x86_64-pc-linux-gnu:cpu=no-such-cpu");
  std::vector<BuiltKernel> built = pool.Build({wrong_key, bad_spec, bad_steps, bad_target});
  EXPECT_EQ(built[0].error_kind, MeasureErrorKind::kInvalidSchedule);
  EXPECT_THAT(built[0].error, HasSubstr("was asked for '0123456789abcdef'"));
  EXPECT_EQ(built[1].error_kind, MeasureErrorKind::kInvalidSchedule);
  EXPECT_THAT(built[1].error, HasSubstr("cannot parse the workload"));
  EXPECT_EQ(built[2].error_kind, MeasureErrorKind::kInvalidSchedule);
  EXPECT_THAT(built[2].error, HasSubstr("step 0"));
  EXPECT_EQ(built[3].error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(built[3].error, HasSubstr("no-such-cpu"));
  EXPECT_EQ(pool.starts(), 1);  // none of them cost the child
}

TEST(BuilderPoolTest, DefinitionsAreBuiltFromTheirText) {
  const std::string text =
      "input A: float32[64, 32]\n"
      "C[i: 64, j: 32] = A[i, j] * 2.0\n";
  absl::StatusOr<te::Workload> w = te::ParseDefinition(text, "twice");
  ASSERT_TRUE(w.ok()) << w.status();
  BuilderPool pool(Config(), 1, 60);
  BuiltKernel k = pool.Build({MakeBuildRequest(WorkloadSource::Definition(text, "twice"), w->dag->workload_key(), {},
                                               codegen::Target::Host())})[0];
  EXPECT_TRUE(k.ok()) << k.error;
}

TEST(BuilderPoolTest, StopSkipsTheRest) {
  BuilderPool pool(Config(), 1, 60);
  int calls = 0;
  std::vector<BuiltKernel> built =
      pool.Build({Request(kSpec, {}), Request(kSpec, Vectorized())}, [&] { return ++calls > 1; });
  EXPECT_TRUE(built[0].ok()) << built[0].error;
  EXPECT_EQ(built[1].error_kind, MeasureErrorKind::kRunnerError);
  EXPECT_THAT(built[1].error, HasSubstr("skipped"));
}

// A killed worker cannot remove its pool's shared cache folder: the next
// pool removes the folders of processes that are gone, not those of live
// ones, and its own goes with it.
TEST(BuilderPoolTest, ThePoolsOfProcessesThatDiedLeaveNoCacheFolderBehind) {
  namespace fs = std::filesystem;
  const pid_t dead = fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) _exit(0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const fs::path temp = fs::temp_directory_path();
  const fs::path of_dead = temp / ("tuneforge-functions-" + std::to_string(dead) + "-test01");
  const fs::path of_live = temp / ("tuneforge-functions-" + std::to_string(getpid()) + "-test02");
  fs::create_directories(of_dead);
  fs::create_directories(of_live);
  std::ofstream(of_dead / "stale.o") << "object";
  auto own_folders = [&] {
    int n = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(temp))
      n += e.path().filename().string().rfind("tuneforge-functions-" + std::to_string(getpid()) + "-", 0) == 0;
    return n;
  };
  {
    BuilderPool pool(Config(), 2, 60);
    EXPECT_FALSE(fs::exists(of_dead));
    EXPECT_TRUE(fs::exists(of_live));
    EXPECT_EQ(own_folders(), 2);  // the live one and the pool's
  }
  EXPECT_EQ(own_folders(), 1);
  fs::remove_all(of_live);
}

}  // namespace
}  // namespace tuneforge::measure
