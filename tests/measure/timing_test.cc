#include "measure/timing.h"

#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/measure/hand_kernels.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

// A "kernel" that busy-waits `micros` and counts its calls.
struct FakeKernel {
  int64_t micros = 50;
  int64_t calls = 0;
  int32_t code = 0;
  int32_t operator()() {
    ++calls;
    auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
    while (std::chrono::steady_clock::now() < end) {
    }
    return code;
  }
};

TEST(TimeKernelTest, NumberAndRepeatAreRespected) {
  FakeKernel k;
  TimingResult r =
      TimeKernel([&] { return k(); }, {.number = 4, .repeat = 5, .min_repeat_ms = 0}, nullptr);
  EXPECT_EQ(r.number, 4);
  ASSERT_EQ(r.repeat_seconds.size(), 5u);
  EXPECT_EQ(k.calls, 20);
  for (double s : r.repeat_seconds) EXPECT_GE(s, 50e-6);
  EXPECT_GE(r.median_seconds, 50e-6);
  EXPECT_LT(r.median_seconds, 5e-3);
  EXPECT_GE(r.timed_ms, 20 * 0.05);
}

TEST(TimeKernelTest, NumberGrowsUntilARepeatLastsMinRepeatMs) {
  FakeKernel k;
  TimingResult r =
      TimeKernel([&] { return k(); }, {.number = 1, .repeat = 3, .min_repeat_ms = 20}, nullptr);
  // 50 us per run: about 440 runs make 20 ms (fewer if this machine is busy
  // and runs look slower during calibration, hence the slack).
  EXPECT_GE(r.number, 50);
  ASSERT_EQ(r.repeat_seconds.size(), 3u);
  // Calibrated to 10 ms on its first runs; a busy machine can make those
  // slower than the timed ones, so only a fifth of it is asserted (one run
  // of the kernel is well under a microsecond).
  for (double s : r.repeat_seconds) EXPECT_GE(s * r.number, 0.002);
  EXPECT_GE(r.timed_ms, 60);
}

// The calibration pass that lasted min_repeat_ms is the first repeat, not
// thrown away: a kernel slower than min_repeat_ms runs once per repeat.
TEST(TimeKernelTest, TheCalibrationPassThatLastedIsTheFirstRepeat) {
  FakeKernel k;
  k.micros = 12000;  // 12 ms a run, min_repeat_ms 10: one run per repeat
  TimingResult r =
      TimeKernel([&] { return k(); }, {.number = 1, .repeat = 3, .min_repeat_ms = 10}, nullptr);
  EXPECT_EQ(r.number, 1);
  ASSERT_EQ(r.repeat_seconds.size(), 3u);
  EXPECT_EQ(k.calls, 3);
  for (double s : r.repeat_seconds) EXPECT_GE(s, 0.012);
  // Without min_repeat_ms there is no calibration: exactly repeat x number runs.
  FakeKernel plain;
  TimeKernel([&] { return plain(); }, {.number = 2, .repeat = 3, .min_repeat_ms = 0}, nullptr);
  EXPECT_EQ(plain.calls, 6);
}

// A candidate behind the best by its probe (a pass of a quarter of
// min_repeat_ms) is timed by that pass alone; a contender goes on to full
// repeats.
TEST(TimeKernelTest, AProbeBehindTheBestIsTheOneRepeat) {
  const TimingOptions options{.number = 1, .repeat = 3, .min_repeat_ms = 40};
  FakeKernel behind;  // 50 us a run against a best of 25 us
  TimingResult r = TimeKernel([&] { return behind(); }, options, nullptr, {.probe_above_s = 25e-6});
  ASSERT_EQ(r.repeat_seconds.size(), 1u);
  EXPECT_GE(r.repeat_seconds[0], 50e-6);
  EXPECT_GE(r.number * r.repeat_seconds[0], 0.010);  // the probe lasted its 10 ms
  EXPECT_LT(r.timed_ms, 40);                         // and no 40-ms repeat ran

  // A busy-wait can only look slower than it is (a busy machine preempts
  // it), so the contender's limit leaves it room: 50 us a run against a
  // limit of 1 ms. (A limit of 60 us failed on a loaded 2-core machine.)
  FakeKernel contender;
  r = TimeKernel([&] { return contender(); }, options, nullptr, {.probe_above_s = 1e-3});
  ASSERT_EQ(r.repeat_seconds.size(), 3u);
  for (double s : r.repeat_seconds) EXPECT_GE(s * r.number, 0.010);
  EXPECT_GE(r.timed_ms, 120);
}

// A candidate whose first full repeat is behind the contenders' limit is
// timed by that repeat alone; one inside it gets all its repeats.
TEST(TimeKernelTest, AFirstRepeatBehindTheContendersIsTheOneRepeat) {
  const TimingOptions options{.number = 1, .repeat = 3, .min_repeat_ms = 40};
  FakeKernel behind;  // 50 us a run against a limit of 25 us
  TimingResult r = TimeKernel([&] { return behind(); }, options, nullptr, {.contend_above_s = 25e-6});
  ASSERT_EQ(r.repeat_seconds.size(), 1u);
  EXPECT_GE(r.number * r.repeat_seconds[0], 0.040);  // a full repeat, not a probe
  // Calibration's passes at least double, so they sum to under one repeat's
  // runs: fewer than two repeats' runs in all (by count: a loaded machine
  // stretches the time, not the runs).
  EXPECT_LT(behind.calls, 2 * r.number);

  FakeKernel contender;  // room for a busy machine, as above
  r = TimeKernel([&] { return contender(); }, options, nullptr, {.contend_above_s = 1e-3});
  ASSERT_EQ(r.repeat_seconds.size(), 3u);
  EXPECT_GE(contender.calls, 3 * r.number);
}

TEST(TimeKernelTest, NonZeroReturnStopsTiming) {
  FakeKernel k;
  k.code = 1;
  TimingResult r =
      TimeKernel([&] { return k(); }, {.number = 2, .repeat = 3, .min_repeat_ms = 0}, nullptr);
  EXPECT_EQ(r.failed_code, 1);
  EXPECT_EQ(r.repeat_seconds.size(), 1u);
}

TEST(TimeKernelTest, FlushTimeIsNotCounted) {
  FakeKernel k;
  CacheFlusher flusher;
  ASSERT_TRUE(flusher.Flush());
  EXPECT_GT(flusher.bytes(), 1 << 20);
  auto start = std::chrono::steady_clock::now();
  TimingResult r =
      TimeKernel([&] { return k(); },
                 {.number = 3, .repeat = 2, .min_repeat_ms = 0, .flush_cache = true}, &flusher);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(k.calls, 6);
  EXPECT_LT(r.median_seconds, 2e-3);  // 50 us runs, not the flushes
  EXPECT_GT(wall, r.timed_ms / 1000);
}

TEST(TimeKernelTest, Median) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(MeasurerTimingTest, RunnerRespectsTimingOptions) {
  testing::ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  MeasureOptions options;
  options.number = 7;
  options.repeat = 4;
  options.min_repeat_ms = 0;
  options.threads = 1;
  auto m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureResult r = (*m)->MeasureBuilt(*w.dag(), k, {k})[0];
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.number, 7);
  EXPECT_EQ(r.repeat_seconds.size(), 4u);
  EXPECT_EQ(r.median_seconds, Median(r.repeat_seconds));

  options.number = 1;
  options.repeat = 2;
  options.min_repeat_ms = 10;
  m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  r = (*m)->MeasureBuilt(*w.dag(), k, {k})[0];
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_GT(r.number, 1);  // a 64-element kernel needs many runs for 10 ms
  ASSERT_EQ(r.repeat_seconds.size(), 2u);
  // Calibrated to 10 ms on its first runs; a busy machine can make those
  // slower than the timed ones, so only a fifth of it is asserted (one run
  // of the kernel is well under a microsecond).
  for (double s : r.repeat_seconds) EXPECT_GE(s * r.number, 0.002);

  // Cold-cache timing: a flush before every run, not counted in the time.
  options.flush_cache = true;
  m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  r = (*m)->MeasureBuilt(*w.dag(), k, {k})[0];
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.repeat_seconds.size(), 2u);
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_LT(r.median_seconds, 1e-3);  // the kernel, not the flush
  EXPECT_GT(r.run_wall_ms - r.timed_ms, 0);
}

// The slow-candidate verdict of a short kernel whose first (check) run was
// slow: judged by its warm time, it is not slow; a kernel slow when warm
// stays slow; a long check run or one under the cut-off is the verdict
// with no more runs.
TEST(SlowVerdictTest, AShortKernelSlowOnlyWhenColdIsJudgedByItsWarmTime) {
  FakeKernel k{.micros = 20};
  auto time_warm = [&](const TimingOptions& o) {
    return std::optional<TimingResult>(TimeKernel(std::ref(k), o, nullptr));
  };
  const double verdict = SlowVerdictSeconds(/*check_s=*/0.005, /*slow_above_s=*/60e-6, time_warm);
  EXPECT_LT(verdict, 60e-6);
  EXPECT_GE(verdict, 20e-6);
  EXPECT_GE(k.calls * 20e-6, kWarmVerdictMs / 1e3);  // warm runs over the verdict's few milliseconds
}

// A warm window the scheduler took the core from (a shared machine) does
// not judge the kernel: the fastest window does.
TEST(SlowVerdictTest, AWindowTakenByAnotherProcessDoesNotMakeAKernelSlow) {
  TimingOptions asked;
  auto time_warm = [&](const TimingOptions& o) {
    asked = o;
    TimingResult t;
    t.number = 50;
    t.repeat_seconds = {500e-6, 20e-6, 25e-6};
    t.median_seconds = 25e-6;
    return std::optional<TimingResult>(t);
  };
  EXPECT_EQ(SlowVerdictSeconds(0.005, 60e-6, time_warm), 20e-6);
  EXPECT_EQ(asked.repeat, kWarmVerdictWindows);
  EXPECT_GT(asked.repeat, 1);
}

TEST(SlowVerdictTest, AKernelSlowWhenWarmStaysSlow) {
  FakeKernel k{.micros = 200};
  auto time_warm = [&](const TimingOptions& o) {
    return std::optional<TimingResult>(TimeKernel(std::ref(k), o, nullptr));
  };
  EXPECT_GT(SlowVerdictSeconds(0.005, 60e-6, time_warm), 60e-6);
}

TEST(SlowVerdictTest, ALongOrFastCheckRunIsTheVerdictWithoutMoreRuns) {
  int calls = 0;
  auto time_warm = [&](const TimingOptions&) {
    ++calls;
    return std::optional<TimingResult>();
  };
  EXPECT_EQ(SlowVerdictSeconds(0.05, 0.01, time_warm), 0.05);     // long: its check run is near its warm time
  EXPECT_EQ(SlowVerdictSeconds(0.001, 0.002, time_warm), 0.001);  // under the cut-off
  EXPECT_EQ(SlowVerdictSeconds(0.001, 0, time_warm), 0.001);      // no cut-off
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(SlowVerdictSeconds(0.001, 1e-4, time_warm), 0.001);  // the warm timing failed: the check run
  EXPECT_EQ(calls, 1);
}

// One thread, three repeats of at least min_repeat_ms: a job's timing at
// test scale.
absl::StatusOr<std::unique_ptr<Measurer>> RepeatingMeasurer(int min_repeat_ms) {
  MeasureOptions options;
  options.number = 1;
  options.repeat = 3;
  options.min_repeat_ms = min_repeat_ms;
  options.threads = 1;
  return Measurer::Create(codegen::Target::Host(), options);
}

// A candidate slower than the job's cut-off is timed by its checked run
// alone; below the cut-off (or without one) it is timed in full.
TEST(MeasurerTimingTest, ACandidateFarBehindTheBestIsTimedByItsCheckedRunAlone) {
  testing::ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  auto m = RepeatingMeasurer(/*min_repeat_ms=*/10);
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureResult slow = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.slow_above_s = 1e-12})[0];
  ASSERT_TRUE(slow.ok()) << slow.error;
  EXPECT_EQ(slow.number, 1);
  ASSERT_EQ(slow.repeat_seconds.size(), 1u);
  EXPECT_EQ(slow.median_seconds, slow.repeat_seconds[0]);
  EXPECT_LT(slow.timed_ms, 5);  // no 10 ms calibration, no repeats

  MeasureResult fast = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.slow_above_s = 10})[0];
  ASSERT_TRUE(fast.ok()) << fast.error;
  EXPECT_EQ(fast.repeat_seconds.size(), 3u);
  EXPECT_GT(fast.number, 1);
  MeasureResult plain = (*m)->MeasureBuilt(*w.dag(), k, {k})[0];
  EXPECT_EQ(plain.repeat_seconds.size(), 3u);

  // As fast as the best (a cut-off of three times its own time, as jobs
  // set it): timed in full, however slow its first run after loading.
  for (int i = 0; i < 5; ++i) {
    MeasureResult near = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.slow_above_s = 3 * plain.median_seconds})[0];
    ASSERT_TRUE(near.ok()) << near.error;
    EXPECT_EQ(near.repeat_seconds.size(), 3u) << "run " << i << ": judged slow at " << near.median_seconds;
  }
}

// Through the runner: a candidate behind the best by its probe pass reports
// that pass (many runs, warm) as its one repeat; a contender is timed in full.
TEST(MeasurerTimingTest, ACandidateBehindTheBestByItsProbeIsTimedByTheProbeAlone) {
  testing::ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  auto m = RepeatingMeasurer(/*min_repeat_ms=*/40);
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureResult behind = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.probe_above_s = 1e-12})[0];
  ASSERT_TRUE(behind.ok()) << behind.error;
  ASSERT_EQ(behind.repeat_seconds.size(), 1u);
  EXPECT_GT(behind.number, 1);  // a timed pass, not the check run
  EXPECT_LT(behind.timed_ms, 40);

  MeasureResult contender = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.probe_above_s = 10})[0];
  ASSERT_TRUE(contender.ok()) << contender.error;
  EXPECT_EQ(contender.repeat_seconds.size(), 3u);
  EXPECT_GE(contender.timed_ms, 3 * 40);
}

// Through the runner and the task's wire form: a candidate whose first full
// repeat is behind the contenders reports that repeat alone.
TEST(MeasurerTimingTest, ACandidateBehindTheContendersIsTimedByOneFullRepeat) {
  testing::ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  auto m = RepeatingMeasurer(/*min_repeat_ms=*/40);
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureResult behind = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.contend_above_s = 1e-12})[0];
  ASSERT_TRUE(behind.ok()) << behind.error;
  ASSERT_EQ(behind.repeat_seconds.size(), 1u);
  EXPECT_GE(behind.timed_ms, 40);  // a full repeat ran, not only a probe

  MeasureResult contender = (*m)->MeasureBuilt(*w.dag(), k, {k}, {.contend_above_s = 10})[0];
  ASSERT_TRUE(contender.ok()) << contender.error;
  EXPECT_EQ(contender.repeat_seconds.size(), 3u);
}

}  // namespace
}  // namespace tuneforge::measure
