#include "measure/runner_process.h"

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/measure/hand_kernels.h"
#include "measure/measure_proto.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

using ::testing::HasSubstr;

class RunnerProcessTest : public ::testing::Test {
 protected:
  RunRequest Request(const BuiltKernel& candidate) const {
    RunRequest r;
    r.set_workload_key(w_.dag()->workload_key());
    r.set_seed(kInputSeed);
    ArgSpecsToProto(reference_.args, r.mutable_args());
    *r.mutable_reference() = KernelObjectToProto(reference_.object);
    *r.mutable_candidate() = KernelObjectToProto(candidate.object);
    MeasureOptions options;
    options.min_repeat_ms = 0;  // the runner takes options as resolved: no calibration
    options.threads = 1;
    *r.mutable_measure() = MeasureOptionsToProto(options);
    return r;
  }
  RunnerConfig Config() const { return {ResolveRunnerPath({}), int64_t{4} << 30}; }

  testing::ElementwiseWorkload w_;
  BuiltKernel reference_ = w_.Build(w_.Correct());
};

TEST_F(RunnerProcessTest, RunnerKilledWhileIdleIsReplacedTransparently) {
  RunnerProcess runner(Config());
  MeasureResult first = runner.Run(Request(reference_), 10, 10);
  ASSERT_EQ(first.error_kind, MeasureErrorKind::kNone) << first.error;
  ASSERT_GT(runner.pid(), 0);
  kill(runner.pid(), SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  MeasureResult second = runner.Run(Request(reference_), 10, 10);
  EXPECT_EQ(second.error_kind, MeasureErrorKind::kNone) << second.error;
  EXPECT_TRUE(second.correct);
  EXPECT_EQ(runner.starts(), 2);
}

TEST_F(RunnerProcessTest, GarbageObjectIsACompileError) {
  RunnerProcess runner(Config());
  BuiltKernel garbage = reference_;
  garbage.object.object = "definitely not an ELF file";
  MeasureResult r = runner.Run(Request(garbage), 10, 10);
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(r.error, HasSubstr("loading the kernel object failed"));
  BuiltKernel wrong_symbol = reference_;
  wrong_symbol.object.symbol = "no_such_kernel";
  r = runner.Run(Request(wrong_symbol), 10, 10);
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kCompileError);
  EXPECT_THAT(r.error, HasSubstr("no_such_kernel"));
  EXPECT_EQ(runner.starts(), 1);  // load failures do not kill the runner
}

TEST_F(RunnerProcessTest, ArgumentsOutOfOrderAreARunnerError) {
  RunnerProcess runner(Config());
  RunRequest r = Request(reference_);
  r.mutable_args()->SwapElements(0, 1);
  MeasureResult reply = runner.Run(r, 10, 10);
  EXPECT_EQ(reply.error_kind, MeasureErrorKind::kRunnerError);
  EXPECT_THAT(reply.error, HasSubstr("is an input after an output"));
}

TEST_F(RunnerProcessTest, DestroyingTheHandleEndsTheChild) {
  pid_t pid;
  {
    RunnerProcess runner(Config());
    ASSERT_EQ(runner.Run(Request(reference_), 10, 10).error_kind, MeasureErrorKind::kNone);
    pid = runner.pid();
  }
  EXPECT_NE(kill(pid, 0), 0);  // reaped: no such process
}

TEST(RunnerPathTest, OptionThenEnvironmentThenNextToTheExecutable) {
  MeasureOptions options;
  options.runner_path = "/opt/x/tuneforge-runner";
  EXPECT_EQ(ResolveRunnerPath(options), "/opt/x/tuneforge-runner");
  const char* saved = getenv("TUNEFORGE_RUNNER");
  std::string saved_value = saved ? saved : "";
  setenv("TUNEFORGE_RUNNER", "/env/tuneforge-runner", 1);
  EXPECT_EQ(ResolveRunnerPath({}), "/env/tuneforge-runner");
  unsetenv("TUNEFORGE_RUNNER");
  std::string next_to_me = ResolveRunnerPath({});
  EXPECT_THAT(next_to_me, ::testing::EndsWith("/tuneforge-runner"));
  EXPECT_EQ(next_to_me.find("/env/"), std::string::npos);
  if (saved) setenv("TUNEFORGE_RUNNER", saved_value.c_str(), 1);
}

TEST(SignalNameTest, NamesCommonSignals) {
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV (segmentation fault)");
  EXPECT_EQ(SignalName(SIGFPE), "SIGFPE (arithmetic exception)");
  EXPECT_EQ(SignalName(63), "signal 63");
}

}  // namespace
}  // namespace tuneforge::measure
