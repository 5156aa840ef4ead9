// How a round's candidates are shared among a job's tasks, with the real
// schedulers and searches the test scripts (how many candidates each task
// has new, and when).
#include "search/task_scheduler/share_round.h"

#include <map>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "search/task_scheduler/gradient.h"

namespace tuneforge::search {
namespace {

// `count` placeholder candidates (the round never looks inside them).
std::vector<std::vector<schedule::Step>> Candidates(int count) {
  return std::vector<std::vector<schedule::Step>>(static_cast<size_t>(count));
}

std::map<size_t, int> Given(const std::vector<TaskCandidates>& round) {
  std::map<size_t, int> given;
  for (const TaskCandidates& share : round) given[share.task] += static_cast<int>(share.candidates.size());
  return given;
}

TEST(ShareRound, SharesARoundEvenlyAndCountsTheTrials) {
  auto scheduler = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::vector<TaskState> tasks(3);
  std::vector<TaskCandidates> round =
      ShareRound(*scheduler, tasks, 10, [](size_t, int n) { return Candidates(n); });
  std::map<size_t, int> given = Given(round);
  EXPECT_EQ(given[0] + given[1] + given[2], 10);
  for (size_t t = 0; t < 3; ++t) {
    EXPECT_GE(given[t], 3) << "task " << t;
    EXPECT_EQ(tasks[t].trials, given[t]);
  }
}

TEST(ShareRound, SharesAreNeverSmallerThanTheMinimum) {
  auto scheduler = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::vector<TaskState> tasks(27);  // ResNet-50's tasks, a round of 64
  int searches = 0;
  std::vector<TaskCandidates> round = ShareRound(
      *scheduler, tasks, 64,
      [&](size_t, int n) {
        ++searches;
        return Candidates(n);
      },
      kMinShareForSearch);
  EXPECT_EQ(searches, 4);  // not 27 searches of 2 or 3 candidates
  std::map<size_t, int> given = Given(round);
  int total = 0;
  for (const auto& [task, n] : given) {
    EXPECT_GE(n, kMinShareForSearch) << "task " << task;
    total += n;
  }
  EXPECT_EQ(total, 64);
  // Less wanted than the minimum: one share of what is wanted.
  round = ShareRound(*scheduler, tasks, 5, [](size_t, int n) { return Candidates(n); }, kMinShareForSearch);
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].candidates.size(), 5u);
}

// A scheduler that picks one task whenever it can.
class Favourite : public TaskScheduler {
 public:
  explicit Favourite(size_t task) : task_(task) {}
  size_t Next(const std::vector<TaskState>& tasks) override {
    return tasks[task_].exhausted ? (task_ + 1) % tasks.size() : task_;
  }
  std::string_view name() const override { return "favourite"; }

 private:
  size_t task_;
};

// A search costs the same for 32 candidates as for 64: a conv's Winograd
// form that the scheduler picks for both shares of a round (its direct form
// has no room) got two searches a round, half of an auto tuning's propose
// time.
TEST(ShareRound, ATaskPickedAgainInARoundGetsOneSearchForAllOfIt) {
  Favourite scheduler(1);
  std::vector<TaskState> tasks(2);
  std::vector<int> asked;
  std::vector<TaskCandidates> round = ShareRound(scheduler, tasks, 64, [&](size_t task, int n) {
    EXPECT_EQ(task, 1u);
    asked.push_back(n);
    return Candidates(n);
  });
  EXPECT_EQ(asked, std::vector<int>({64}));
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(tasks[1].trials, 64);
  EXPECT_EQ(tasks[0].trials, 0);
  // What the search had new is what the task is counted for; a search
  // with less than its share leaves the rest of the round to the next picks.
  asked.clear();
  round = ShareRound(scheduler, tasks, 64, [&](size_t task, int n) {
    asked.push_back(n);
    return Candidates(task == 1 && asked.size() == 1 ? 40 : n);
  });
  EXPECT_EQ(asked, std::vector<int>({64, 24}));
  EXPECT_EQ(Given(round), (std::map<size_t, int>{{1, 64}}));
  EXPECT_EQ(tasks[1].trials, 128);
}

TEST(ShareRound, TheGradientSchedulersRoundForAConvLedByItsWinogradFormIsOneSearch) {
  GradientSchedulerOptions options;
  options.epsilon = 0;
  GradientScheduler scheduler(options);
  // Past warm-up: Winograd (0.70x the FLOPs) runs at 1.3x the direct
  // form's FLOP rate, so the direct form has no room below it.
  std::vector<TaskState> tasks(2);
  tasks[0].flops = 231e6;
  tasks[1].flops = 162e6;
  tasks[1].form_of = 0;
  tasks[0].trials = tasks[1].trials = 64;
  tasks[0].best_seconds = 0.9e-3;
  tasks[1].best_seconds = 0.9e-3 * 162 / 231 / 1.3;
  int searches = 0;
  std::vector<TaskCandidates> round = ShareRound(scheduler, tasks, 64, [&](size_t, int n) {
    ++searches;
    return Candidates(n);
  });
  EXPECT_EQ(searches, 1);
  EXPECT_EQ(Given(round), (std::map<size_t, int>{{1, 64}}));
}

TEST(ShareRound, ATaskWithNothingNewLeavesItsShareToTheOthers) {
  auto scheduler = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::vector<TaskState> tasks(4);
  std::vector<TaskCandidates> round = ShareRound(*scheduler, tasks, 8, [](size_t task, int n) {
    return task == 0 ? Candidates(0) : Candidates(n);
  });
  std::map<size_t, int> given = Given(round);
  EXPECT_EQ(given.count(0), 0u);
  EXPECT_EQ(given[1] + given[2] + given[3], 8);
  EXPECT_TRUE(tasks[0].exhausted);
  EXPECT_EQ(tasks[0].trials, 0);
}

TEST(ShareRound, AnUntunedTaskGetsNoTrialsAndItsFormGetsTheRound) {
  // A conv tuned in its Winograd form only (--conv-algorithm winograd): the
  // conv is task 0, untuned; its form is task 1. Rounds after rounds, under
  // either scheduler, every candidate goes to the form.
  for (TaskSchedulerKind kind : {TaskSchedulerKind::kRoundRobin, TaskSchedulerKind::kGradient}) {
    auto scheduler = MakeTaskScheduler(kind, 1);
    std::vector<TaskState> tasks(2);
    tasks[0].untuned = true;
    tasks[1].form_of = 0;
    int asked_of_untuned = 0;
    for (int r = 0; r < 6; ++r) {
      std::vector<TaskCandidates> round = ShareRound(*scheduler, tasks, 16, [&](size_t task, int n) {
        asked_of_untuned += task == 0;
        return Candidates(n);
      });
      std::map<size_t, int> given = Given(round);
      EXPECT_EQ(given.count(0), 0u) << scheduler->name() << " round " << r;
      EXPECT_EQ(given[1], 16) << scheduler->name() << " round " << r;
      tasks[1].best_seconds = 1.0 / (r + 1);
    }
    EXPECT_EQ(asked_of_untuned, 0) << scheduler->name();
    EXPECT_EQ(tasks[0].trials, 0) << scheduler->name();
    EXPECT_EQ(tasks[1].trials, 6 * 16) << scheduler->name();
  }
}

TEST(ShareRound, NothingProposedWhenNoTaskHasAnythingNew) {
  for (TaskSchedulerKind kind : {TaskSchedulerKind::kRoundRobin, TaskSchedulerKind::kGradient}) {
    auto scheduler = MakeTaskScheduler(kind, 1);
    std::vector<TaskState> tasks(3);
    int asked = 0;
    std::vector<TaskCandidates> round = ShareRound(*scheduler, tasks, 6, [&](size_t, int) {
      ++asked;
      return Candidates(0);
    });
    EXPECT_TRUE(round.empty()) << scheduler->name();
    EXPECT_LE(asked, 3) << scheduler->name();  // at most one share per task
  }
}

// The bug this guards: the gradient scheduler never picks an exhausted task,
// so a task that once had nothing new for a one-candidate share (32 tasks,
// rounds of 16) was starved for the rest of the job.
TEST(ShareRound, ATaskEmptyOnceIsTunedAgainInLaterRounds) {
  GradientSchedulerOptions options;
  options.epsilon = 0;
  GradientScheduler scheduler(options);
  std::vector<TaskState> tasks(8);
  for (TaskState& t : tasks) t.flops = 1e9;
  bool first_ask_of_task_2 = true;
  for (int r = 0; r < 20; ++r) {
    std::vector<TaskCandidates> round = ShareRound(scheduler, tasks, 4, [&](size_t task, int n) {
      if (task == 2 && first_ask_of_task_2) {
        first_ask_of_task_2 = false;
        return Candidates(0);
      }
      return Candidates(n);
    });
    // Measured: each task's best falls with its trials (task 2 weighs most).
    for (TaskState& t : tasks)
      if (t.trials > 0) t.best_seconds = 1e-3 / static_cast<double>(t.trials);
    tasks[2].weight = 10;
  }
  EXPECT_FALSE(first_ask_of_task_2);
  EXPECT_GT(tasks[2].trials, 0) << "the task that was empty once never got another share";
}

}  // namespace
}  // namespace tuneforge::search
