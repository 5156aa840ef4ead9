// The gradient-based task scheduler on tasks whose state the test sets, and
// on a simulated model whose tasks improve along known curves.
#include "search/task_scheduler/gradient.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace tuneforge::search {
namespace {

GradientSchedulerOptions NoExploration() {
  GradientSchedulerOptions o;
  o.epsilon = 0;
  return o;
}

TaskState Task(int64_t trials, double best_seconds, double weight = 1, double flops = 1e9,
               const std::string& group = "") {
  TaskState t;
  t.trials = trials;
  t.best_seconds = best_seconds;
  t.weight = weight;
  t.flops = flops;
  t.group = group;
  return t;
}

TEST(GradientScheduler, WarmsUpRoundRobinUntilEveryTaskHasItsWarmUpTrials) {
  GradientSchedulerOptions o = NoExploration();
  o.warmup_trials = 4;
  GradientScheduler s(o);
  EXPECT_EQ(s.name(), "gradient");
  // Task 0 weighs most and its one sample was slow: during warm-up that
  // does not matter, the task with the fewest trials goes next.
  std::vector<TaskState> tasks = {Task(0, 0, 100), Task(0, 0), Task(0, 0)};
  tasks[1].exhausted = true;  // never picked, not even to warm up
  std::vector<size_t> picks;
  for (int share = 0; share < 6; ++share) {
    size_t i = s.Next(tasks);
    picks.push_back(i);
    tasks[i].trials += 2;
    tasks[i].best_seconds = i == 0 ? 9e-3 : 1e-3;
  }
  EXPECT_EQ(picks, (std::vector<size_t>{0, 2, 0, 2, 0, 0}));
  EXPECT_EQ(tasks[2].trials, 4);
}

TEST(GradientScheduler, FavoursTheTaskThatWeighsMostInTheModel) {
  GradientScheduler s(NoExploration());
  std::vector<TaskState> tasks = {Task(64, 1e-3, 1), Task(64, 1e-3, 10), Task(64, 1e-3, 1)};
  for (int i = 0; i < 3; ++i) s.Next(tasks);  // warm-up
  EXPECT_EQ(s.Next(tasks), 1u);
  EXPECT_LT(s.last_gradients()[1], s.last_gradients()[0]);
}

TEST(GradientScheduler, FavoursATaskThatImprovedRecently) {
  GradientSchedulerOptions o = NoExploration();
  o.alpha = 0.9;  // mostly history
  GradientScheduler s(o);
  std::vector<TaskState> tasks = {Task(8, 4e-3), Task(8, 4e-3)};
  s.Next(tasks);
  s.Next(tasks);
  // Task 0 halves its time over the next shares; task 1 stays.
  for (int step = 1; step <= 4; ++step) {
    tasks[0] = Task(8 + 8 * step, 4e-3 / (1 << step));
    tasks[1] = Task(8 + 8 * step, 4e-3);
    s.Next(tasks);
  }
  tasks[0].trials += 8;
  tasks[1].trials += 8;
  EXPECT_EQ(s.Next(tasks), 0u);
}

TEST(GradientScheduler, FavoursATaskFarSlowerThanSimilarOnes) {
  GradientScheduler s(NoExploration());
  // Same op, same trials and time: task 1 reaches a tenth of task 0's FLOP
  // rate, so it has the most to gain.
  std::vector<TaskState> tasks = {Task(100, 1e-3, 1, 1e9, "conv2d"), Task(100, 1e-3, 1, 1e8, "conv2d"),
                                  Task(100, 1e-3, 1, 1e9, "dense")};
  for (int i = 0; i < 3; ++i) s.Next(tasks);
  EXPECT_EQ(s.Next(tasks), 1u);
}

TEST(GradientScheduler, ATaskWithoutACorrectProgramGoesFirst) {
  GradientScheduler s(NoExploration());
  std::vector<TaskState> tasks = {Task(16, 1e-3, 5), Task(16, 0, 1)};
  s.Next(tasks);
  s.Next(tasks);
  EXPECT_EQ(s.Next(tasks), 1u);
}

TEST(GradientScheduler, RestsATaskThatStoppedImprovingWhileOthersCanGoOn) {
  GradientSchedulerOptions o = NoExploration();
  o.early_stop_trials = 32;
  GradientScheduler s(o);
  // Task 0 weighs most but its best has not moved for 32 trials.
  std::vector<TaskState> tasks = {Task(8, 2e-3, 10), Task(8, 1e-3, 1)};
  s.Next(tasks);
  s.Next(tasks);
  tasks[0].trials = 40;  // same best
  EXPECT_EQ(s.Next(tasks), 1u);
  // Once every task rests, the one that matters most goes on after all.
  tasks[1].trials = 40;
  EXPECT_EQ(s.Next(tasks), 0u);
}

TEST(GradientScheduler, NeverPicksAnExhaustedTaskWhileAnotherCanGoOn) {
  GradientScheduler s(NoExploration());
  std::vector<TaskState> tasks = {Task(8, 1e-3, 100), Task(8, 1e-3, 1)};
  s.Next(tasks);
  s.Next(tasks);
  tasks[0].exhausted = true;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.Next(tasks), 1u);
}

TEST(GradientScheduler, ExploresWithProbabilityEpsilonReproducibly) {
  GradientSchedulerOptions o;
  o.epsilon = 0.5;
  o.seed = 42;
  GradientScheduler a(o), b(o);
  std::vector<TaskState> tasks = {Task(8, 1e-3, 1000), Task(8, 1e-3, 1), Task(8, 1e-3, 1)};
  std::map<size_t, int> picks;
  std::vector<size_t> seq_a, seq_b;
  for (int i = 0; i < 400; ++i) {
    seq_a.push_back(a.Next(tasks));
    seq_b.push_back(b.Next(tasks));
    ++picks[seq_a.back()];
  }
  EXPECT_EQ(seq_a, seq_b);  // same seed, same choices
  // Task 0 wins every gradient; the others get only random picks (~1/6 each).
  EXPECT_GT(picks[1], 30);
  EXPECT_GT(picks[2], 30);
  EXPECT_GT(picks[0], 200);
}

// A model of four tasks whose best latency falls along known curves as they
// get trials: one heavy task (weight 8) that needs many trials, three light
// ones. Each pick is a share of 8 trials, as a job's round hands them out.
struct SimulatedTask {
  double weight, start_seconds, floor_fraction, trials_to_improve;
  double Best(int64_t trials) const {
    return start_seconds * (floor_fraction + (1 - floor_fraction) * std::exp(-trials / trials_to_improve));
  }
};

int64_t TrialsToReach(TaskSchedulerKind kind, double target_fraction) {
  const std::vector<SimulatedTask> model = {
      {8, 4e-3, 0.2, 400}, {1, 1e-3, 0.5, 60}, {1, 1e-3, 0.5, 60}, {1, 1e-3, 0.5, 60}};
  double floor = 0;
  for (const SimulatedTask& m : model) floor += m.weight * m.start_seconds * m.floor_fraction;
  std::unique_ptr<TaskScheduler> s = MakeTaskScheduler(kind, /*seed=*/7);
  std::vector<TaskState> tasks(model.size());
  for (size_t i = 0; i < model.size(); ++i) {
    tasks[i].weight = model[i].weight;
    tasks[i].flops = 1e9;
    tasks[i].group = "task" + std::to_string(i);  // none alike
  }
  int64_t total = 0;
  while (total < 100000) {
    size_t i = s->Next(tasks);
    tasks[i].trials += 8;
    tasks[i].best_seconds = model[i].Best(tasks[i].trials);
    total += 8;
    bool all_measured = true;
    for (const TaskState& t : tasks) all_measured &= t.best_seconds > 0;
    if (all_measured && EstimatedLatencySeconds(tasks) <= floor / target_fraction) return total;
  }
  return total;
}

TEST(GradientScheduler, ReachesAModelLatencyInFewerTrialsThanRoundRobin) {
  // 90% of the way to the best the model can reach.
  const int64_t gradient = TrialsToReach(TaskSchedulerKind::kGradient, 0.9);
  const int64_t round_robin = TrialsToReach(TaskSchedulerKind::kRoundRobin, 0.9);
  std::printf("trials to 90%% of the model's best latency: gradient %lld, round-robin %lld\n",
              static_cast<long long>(gradient), static_cast<long long>(round_robin));
  EXPECT_LT(gradient, round_robin * 3 / 4);
}

TEST(EstimatedLatency, SumsWeightTimesBestOverTasksWithAProgram) {
  EXPECT_DOUBLE_EQ(EstimatedLatencySeconds({Task(8, 1e-3, 2), Task(8, 0, 5), Task(8, 3e-3, 1)}), 5e-3);
}

TaskState FormOf(int of, int64_t trials, double best_seconds, double weight = 1) {
  TaskState t = Task(trials, best_seconds, weight);
  t.form_of = of;
  return t;
}

// Forms of a task (a conv and its Winograd form) are alternatives: the
// model runs the faster one, so only that one counts, whichever it is.
TEST(EstimatedLatency, CountsTheFasterFormOfATaskOnce) {
  EXPECT_DOUBLE_EQ(EstimatedLatencySeconds({Task(8, 4e-3, 2), Task(8, 1e-3), FormOf(0, 8, 3e-3, 2)}), 7e-3);
  EXPECT_DOUBLE_EQ(EstimatedLatencySeconds({Task(8, 2e-3, 2), FormOf(0, 8, 5e-3, 2)}), 4e-3);
  // A form with a program stands for its task while the task has none.
  EXPECT_DOUBLE_EQ(EstimatedLatencySeconds({Task(8, 0, 3), FormOf(0, 8, 1e-3, 3)}), 3e-3);
  EXPECT_DOUBLE_EQ(FastestFormSeconds({Task(8, 2e-3), FormOf(0, 8, 5e-3)}, 1), 2e-3);
}

// Equal trials, equal times: a form far slower than its task's other form
// gains the model only what it may go below that one, so a task of the
// same latency and no faster form goes first; the same form alone would
// have tied with it.
TEST(GradientScheduler, AFormSlowerThanItsSiblingGainsOnlyBelowIt) {
  GradientScheduler s(NoExploration());
  std::vector<TaskState> tasks = {Task(64, 1e-3), FormOf(0, 64, 8e-3), Task(64, 8e-3)};
  for (int i = 0; i < 3; ++i) s.Next(tasks);
  EXPECT_EQ(s.Next(tasks), 2u);
  EXPECT_LT(s.last_gradients()[2], 4 * s.last_gradients()[1]);
  GradientScheduler alone(NoExploration());
  std::vector<TaskState> unrelated = {Task(64, 1e-3), Task(64, 8e-3), Task(64, 8e-3)};
  for (int i = 0; i < 3; ++i) alone.Next(unrelated);
  alone.Next(unrelated);
  EXPECT_DOUBLE_EQ(alone.last_gradients()[1], alone.last_gradients()[2]);
}

// The auto conv of a 1,000-trial job halfway (figures from its records): the
// direct form 0.776 ms for 231.2 MFLOP, Winograd 0.797 ms for 162.2 MFLOP.
// At the direct form's FLOP rate Winograd would take 0.544 ms: it is slower
// now but has the room, so it gets the trials; with the direct form's FLOPs
// it would have none, and the direct form goes on.
std::vector<TaskState> ConvForms(double direct_seconds, double winograd_seconds, double winograd_flops) {
  TaskState direct = Task(500, direct_seconds, 1, 231.2e6);
  TaskState winograd = Task(500, winograd_seconds, 1, winograd_flops);
  winograd.form_of = 0;
  return {direct, winograd};
}

TEST(GradientScheduler, AFormWithFewerFlopsGetsTheTrialsWhileItTrailsTheBestRate) {
  EXPECT_NEAR(FastestFormRate(ConvForms(0.776e-3, 0.797e-3, 162.2e6), 1), 231.2e6 / 0.776e-3, 1);
  EXPECT_EQ(FastestFormRate({Task(500, 0.776e-3)}, 0), 0);  // no other form
  GradientScheduler s(NoExploration());
  std::vector<TaskState> tasks = ConvForms(0.776e-3, 0.797e-3, 162.2e6);
  for (int i = 0; i < 2; ++i) s.Next(tasks);
  EXPECT_EQ(s.Next(tasks), 1u);
  EXPECT_LT(s.last_gradients()[1], 100 * s.last_gradients()[0]);
  GradientScheduler same(NoExploration());
  tasks = ConvForms(0.776e-3, 0.797e-3, 231.2e6);
  for (int i = 0; i < 2; ++i) same.Next(tasks);
  EXPECT_EQ(same.Next(tasks), 0u);
}

// Once Winograd leads, the direct form (more FLOPs) could go below it only
// at a FLOP rate no form has reached: it gets no share (before, equal trials
// tied the two), not even while Winograd rests, since it expects no gain;
// a task that does expect one takes the resting form's place.
TEST(GradientScheduler, AFormWithMoreFlopsWaitsWhileTheFasterFormCanGain) {
  GradientSchedulerOptions o = NoExploration();
  o.early_stop_trials = 64;
  GradientScheduler s(o);
  std::vector<TaskState> tasks = ConvForms(0.776e-3, 0.700e-3, 162.2e6);
  for (int i = 0; i < 2; ++i) s.Next(tasks);
  EXPECT_EQ(s.Next(tasks), 1u);
  EXPECT_EQ(s.last_gradients()[0], 0);
  tasks[1].trials += 64;  // no better: Winograd rests, and still goes on
  EXPECT_EQ(s.Next(tasks), 1u);
  EXPECT_LT(s.last_gradients()[1], 0);
  tasks.push_back(Task(64, 1e-3));  // another task of the model
  GradientScheduler with_other(o);
  for (int i = 0; i < 3; ++i) with_other.Next(tasks);
  tasks[1].trials += 64;
  EXPECT_EQ(with_other.Next(tasks), 2u);
}

}  // namespace
}  // namespace tuneforge::search
