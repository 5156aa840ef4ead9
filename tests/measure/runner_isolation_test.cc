// Real runner processes, hand-written kernels: a kernel that is wrong,
// crashes, hangs or runs out of memory costs its own candidate only.
#include <chrono>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/measure/hand_kernels.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

using testing::ElementwiseWorkload;
using ::testing::HasSubstr;

std::unique_ptr<Measurer> MakeUntimedMeasurer(MeasureOptions options = {}) {
  options.min_repeat_ms = 0;  // these tests are about outcomes, not timing quality
  options.threads = 1;
  absl::StatusOr<std::unique_ptr<Measurer>> m = Measurer::Create(codegen::Target::Host(), options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

void ExpectMeasured(const MeasureResult& r) {
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kNone) << r.error;
  EXPECT_TRUE(r.correct);
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_EQ(r.max_abs_error, 0);
}

class RunnerIsolationTest : public ::testing::Test {
 protected:
  ElementwiseWorkload w_;
  BuiltKernel reference_ = w_.Build(w_.Correct());
};

TEST_F(RunnerIsolationTest, CorrectKernelGetsATime) {
  auto m = MakeUntimedMeasurer();
  ASSERT_NE(m, nullptr);
  auto results = m->MeasureBuilt(*w_.dag(), reference_, {w_.Build(w_.Correct())});
  ASSERT_EQ(results.size(), 1u);
  ExpectMeasured(results[0]);
  EXPECT_EQ(results[0].repeat_seconds.size(), 3u);
  EXPECT_GT(results[0].compile_ms, 0);
  EXPECT_GT(results[0].run_wall_ms, 0);
}

TEST_F(RunnerIsolationTest, KernelWritingZerosIsAWrongAnswer) {
  auto m = MakeUntimedMeasurer();
  auto results =
      m->MeasureBuilt(*w_.dag(), reference_, {w_.Build(w_.Zeros()), w_.Build(w_.Correct())});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_FALSE(results[0].correct);
  EXPECT_EQ(results[0].median_seconds, 0);  // never a time
  EXPECT_THAT(results[0].error, HasSubstr("output 'B'"));
  EXPECT_THAT(results[0].error, HasSubstr("first at ["));
  EXPECT_GT(results[0].max_abs_error, 0.1);
  ExpectMeasured(results[1]);
}

TEST_F(RunnerIsolationTest, SkippedElementIsCaughtEvenAfterACorrectRun) {
  // The correct kernel runs first and leaves right values in the output
  // buffer; the next one skips the last element and must still fail.
  auto m = MakeUntimedMeasurer();
  auto results =
      m->MeasureBuilt(*w_.dag(), reference_,
                      {w_.Build(w_.Correct()), w_.Build(w_.Correct(ElementwiseWorkload::kN - 1))});
  ExpectMeasured(results[0]);
  EXPECT_EQ(results[1].error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_THAT(results[1].error, HasSubstr("1 of 64 elements differ; first at [63]"));
}

TEST_F(RunnerIsolationTest, SegfaultCostsOneCandidate) {
  auto m = MakeUntimedMeasurer();
  auto results =
      m->MeasureBuilt(*w_.dag(), reference_,
                      {w_.Build(w_.Correct()), w_.Build(w_.Segfault()), w_.Build(w_.Correct())});
  ASSERT_EQ(results.size(), 3u);
  ExpectMeasured(results[0]);
  EXPECT_EQ(results[1].error_kind, MeasureErrorKind::kRuntimeCrash);
  EXPECT_THAT(results[1].error, HasSubstr("the kernel crashed with SIGSEGV"));
  ExpectMeasured(results[2]);
  EXPECT_EQ(m->runner_starts(), 2);  // restarted once, after the crash
}

TEST_F(RunnerIsolationTest, EndlessLoopTimesOutAndTheRunnerIsReplaced) {
  MeasureOptions options;
  options.timeout_s = 1;
  auto m = MakeUntimedMeasurer(options);
  auto start = std::chrono::steady_clock::now();
  auto results =
      m->MeasureBuilt(*w_.dag(), reference_, {w_.Build(w_.Endless()), w_.Build(w_.Correct())});
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kTimeout);
  EXPECT_THAT(results[0].error, HasSubstr("did not finish within 1 s (timeout_s)"));
  ExpectMeasured(results[1]);
  EXPECT_LT(elapsed, 10);  // killed at the deadline, not left running
  EXPECT_EQ(m->runner_starts(), 2);
}

// Behind a best of 17 ms (a cut-off of 50 ms), a candidate is measured in a
// forked child: one still running at 10x the best is stopped there, long
// before its deadline, and the runner, its buffers and its reference stay.
TEST_F(RunnerIsolationTest, ACandidatePastTheCutOffIsStoppedThereAndTheRunnerStays) {
  MeasureOptions options;
  options.timeout_s = 60;
  auto m = MakeUntimedMeasurer(options);
  ASSERT_NE(m, nullptr);
  auto start = std::chrono::steady_clock::now();
  auto results = m->MeasureBuilt(*w_.dag(), reference_, {w_.Build(w_.Endless()), w_.Build(w_.Correct())},
                                 {.slow_above_s = 0.05});
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kTimeout);
  EXPECT_THAT(results[0].error, HasSubstr("the time at which candidates far behind the best so far are stopped"));
  EXPECT_EQ(results[0].median_seconds, 0);
  ExpectMeasured(results[1]);  // in time: checked and timed in the child
  EXPECT_EQ(results[1].repeat_seconds.size(), 3u);
  EXPECT_LT(elapsed, 10);
  EXPECT_EQ(m->runner_starts(), 1);
}

TEST_F(RunnerIsolationTest, AWatchedCandidateThatCrashesOrIsWrongIsNamedAndTheRunnerStays) {
  auto m = MakeUntimedMeasurer();
  ASSERT_NE(m, nullptr);
  auto results = m->MeasureBuilt(*w_.dag(), reference_,
                                 {w_.Build(w_.Segfault()), w_.Build(w_.Zeros()), w_.Build(w_.Correct())},
                                 {.slow_above_s = 0.05});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kRuntimeCrash);
  EXPECT_THAT(results[0].error, HasSubstr("the kernel crashed with SIGSEGV"));
  EXPECT_EQ(results[1].error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_THAT(results[1].error, HasSubstr("output 'B'"));
  ExpectMeasured(results[2]);
  EXPECT_EQ(m->runner_starts(), 1);
}

TEST_F(RunnerIsolationTest, FailedAllocationIsOutOfMemory) {
  MeasureOptions options;
  options.memory_limit_mb = 4096;
  auto m = MakeUntimedMeasurer(options);
  auto results = m->MeasureBuilt(*w_.dag(), reference_,
                                 {w_.Build(w_.HugeAllocation()), w_.Build(w_.Correct())});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kOutOfMemory);
  EXPECT_THAT(results[0].error, HasSubstr("returned 1: a temporary allocation failed"));
  ExpectMeasured(results[1]);
  EXPECT_EQ(m->runner_starts(), 1);  // the kernel failed cleanly: no restart
}

TEST_F(RunnerIsolationTest, ArgumentsBeyondTheMemoryLimitAreOutOfMemory) {
  // A workload whose own tensors do not fit under the runner's limit.
  te::Tensor a = te::Placeholder("Big", {int64_t{1} << 31});
  auto b = te::Compute("Out", {int64_t{1} << 31},
                       [&](const std::vector<te::Var>& v) { return te::Read(a, {v[0]}); });
  ASSERT_TRUE(b.ok());
  auto dag = te::ComputeDag::Create({*b});
  ASSERT_TRUE(dag.ok());
  te::Buffer in = testing::MakeBuffer("Big", {int64_t{1} << 31});
  te::Buffer out = testing::MakeBuffer("Out", {int64_t{1} << 31});
  te::Var i = te::MakeVar("i");
  lower::LoweredFunc copy{
      "kernel",
      {in, out},
      lower::MakeFor(
          i, int64_t{1} << 31, lower::ForKind::kSerial,
          lower::MakeStore(out, {i}, te::MakeBufferLoad(in, {i}, te::DType::Float32())))};
  BuiltKernel k = BuildLowered(*dag, copy, codegen::Target::Host());
  ASSERT_TRUE(k.ok()) << k.error;
  MeasureOptions options;
  options.memory_limit_mb = 4096;  // the two 8 GiB tensors cannot fit
  auto m = MakeUntimedMeasurer(options);
  auto results = m->MeasureBuilt(*dag, k, {k});
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kOutOfMemory);
  EXPECT_THAT(results[0].error, HasSubstr("cannot allocate"));
  // The same runner still measures other workloads.
  ExpectMeasured(m->MeasureBuilt(*w_.dag(), reference_, {reference_})[0]);
}

TEST_F(RunnerIsolationTest, KernelWritingItsInputIsAWrongAnswer) {
  auto m = MakeUntimedMeasurer();
  auto results = m->MeasureBuilt(*w_.dag(), reference_,
                                 {w_.Build(w_.ClobbersInput()), w_.Build(w_.Correct())});
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_THAT(results[0].error, HasSubstr("wrote into its input 'A'"));
  // The inputs are regenerated for the next candidate.
  ExpectMeasured(results[1]);
}

TEST_F(RunnerIsolationTest, CrashingReferenceIsNamed) {
  auto m = MakeUntimedMeasurer();
  BuiltKernel bad_reference = w_.Build(w_.Segfault());
  auto results = m->MeasureBuilt(*w_.dag(), bad_reference, {w_.Build(w_.Correct())});
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kRuntimeCrash);
  EXPECT_THAT(results[0].error,
              HasSubstr("the reference (unscheduled) kernel crashed with SIGSEGV"));
}

TEST_F(RunnerIsolationTest, BuildFailuresStayWithTheirCandidate) {
  // Eight candidates built in parallel; number 3 cannot be compiled.
  std::vector<BuiltKernel> built = BuildParallel(8, 4, [&](int i) {
    return BuildLowered(*w_.dag(), i == 3 ? w_.Uncompilable() : w_.Correct(),
                        codegen::Target::Host());
  });
  ASSERT_EQ(built.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    if (i == 3) {
      EXPECT_EQ(built[i].error_kind, MeasureErrorKind::kCompileError);
      EXPECT_THAT(built[i].error, HasSubstr("flattened buffers"));
    } else {
      EXPECT_TRUE(built[i].ok()) << i << ": " << built[i].error;
      EXPECT_FALSE(built[i].object.object.empty());
    }
  }
  auto m = MakeUntimedMeasurer();
  auto results = m->MeasureBuilt(*w_.dag(), reference_, built);
  ASSERT_EQ(results.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    if (i == 3) {
      EXPECT_EQ(results[i].error_kind, MeasureErrorKind::kCompileError);
    } else {
      ExpectMeasured(results[i]);
    }
  }
  EXPECT_EQ(m->runner_starts(), 1);
}

TEST_F(RunnerIsolationTest, KernelArgumentsMustMatchTheWorkload) {
  lower::LoweredFunc missing_output = w_.Correct();
  missing_output.args.pop_back();
  BuiltKernel k = BuildLowered(*w_.dag(), missing_output, codegen::Target::Host());
  EXPECT_EQ(k.error_kind, MeasureErrorKind::kLowerError);
  EXPECT_THAT(k.error, HasSubstr("takes 1 buffers but the workload has 1 inputs and 1 outputs"));
  lower::LoweredFunc wrong_shape = w_.Correct();
  wrong_shape.args[1] = testing::MakeBuffer("B", {32});
  k = BuildLowered(*w_.dag(), wrong_shape, codegen::Target::Host());
  EXPECT_EQ(k.error_kind, MeasureErrorKind::kLowerError);
  EXPECT_THAT(
      k.error,
      HasSubstr("kernel argument 1 is float32[32] but the workload's output 'B' is float32[64]"));
}

TEST(MeasurerCreateTest, RejectsBadSetups) {
  auto target = codegen::Target::Parse("aarch64");
  ASSERT_TRUE(target.ok()) << target.status();
  auto m = Measurer::Create(*target);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("cannot run on this machine"));
  MeasureOptions options;
  options.runner_path = "/nonexistent/tuneforge-runner";
  m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(),
              HasSubstr("runner binary '/nonexistent/tuneforge-runner' not found"));
  options = MeasureOptions{};
  options.repeat = 0;
  m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("repeat (0) and number (1) must be >= 1"));
}

TEST(MeasurerCreateTest, RunnerThatIsNotARunnerIsAnError) {
  // /bin/true starts and exits without a hello: every candidate gets a
  // runner_error naming the binary; the caller keeps going.
  MeasureOptions options;
  options.runner_path = "/bin/true";
  auto m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  auto results = (*m)->MeasureBuilt(*w.dag(), k, {k});
  EXPECT_EQ(results[0].error_kind, MeasureErrorKind::kRunnerError);
  EXPECT_THAT(results[0].error, HasSubstr("the runner '/bin/true' did not start"));
}

}  // namespace
}  // namespace tuneforge::measure
