// Task scheduler: which of a job's tasks (workloads) gets the next share of
// a round's candidates. A job tuning several workloads (the layers of a
// model) asks it once per share; round-robin gives every task its turn, the
// gradient-based scheduler (Ansor's, gradient.h) favours the tasks whose
// speed-up would shorten the whole model the most. A new policy is a new
// file and a new TaskSchedulerKind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tuneforge::search {

// What the scheduler knows of one task when it picks.
struct TaskState {
  int64_t trials = 0;         // candidates measured (or issued) so far
  double best_seconds = 0;    // fastest correct time so far; 0: none yet
  double flops = 0;           // of one run of the task's program
  double weight = 1;          // how often the task runs in the whole model
  bool exhausted = false;     // its search had nothing new earlier in this round
  // Tasks of one group are similar: one of them can be expected to reach
  // about the FLOP rate of the others (SimilarityGroup). "" : in no group.
  std::string group;
  // Another form of task `form_of` (the same outputs by another algorithm,
  // e.g. a conv by Winograd); -1: none. Forms are alternatives: the model
  // runs the faster one, so only the fastest of them counts.
  int form_of = -1;
  // Tuned in its other forms only: it gets no trials (ShareRound marks it
  // exhausted in every round), and its forms count as it.
  bool untuned = false;
};

// The index of the task whose outputs `i` computes: its own, or the one it
// is a form of.
size_t PrimaryOf(const std::vector<TaskState>& tasks, size_t i);
// The fastest correct best among task i's forms (its primary and every
// form of it); 0 when none has one.
double FastestFormSeconds(const std::vector<TaskState>& tasks, size_t i);
// The highest FLOP rate (each form's own FLOPs over its best) among task i's
// forms; 0 when the task has no other form or none has a program.
double FastestFormRate(const std::vector<TaskState>& tasks, size_t i);

// The group of a task of operator `op` with `flops` per run producing
// `outputs` elements: the operator, its FLOPs on a log scale (base 1.618,
// as TVM's Ansor does) and its FLOPs per output element on a coarser one
// (base 4: a 3x3 conv over 64 channels is like one over 128).
// The same operator at a very different size is not similar: a first conv
// over 3 input channels never reaches the FLOP rate of a 1x1 conv over 384.
// Nor is one of the same size but with less work per output: ResNet's 7x7
// stem conv (294 FLOPs per output) has the FLOPs of a 3x3 conv over 64
// channels (1,152) but cannot reuse its data as well; grouped with it, the
// stem looked far behind and took 616 of a 1,600-trial ResNet-18 tuning.
std::string SimilarityGroup(std::string_view op, double flops, double outputs);

// The end-to-end latency the tasks' bests add up to: sum of weight x best
// over the tasks that have a correct program, of a task's forms the
// fastest.
double EstimatedLatencySeconds(const std::vector<TaskState>& tasks);

class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  // The index of the task that gets the next share; `tasks` is not empty.
  // Called with the same task list for the life of a job.
  virtual size_t Next(const std::vector<TaskState>& tasks) = 0;
  virtual std::string_view name() const = 0;
};

enum class TaskSchedulerKind {
  kRoundRobin,  // every task in turn, whatever its state
  kGradient,    // Ansor's: where the end-to-end latency is expected to fall most
};

// `seed` makes a scheduler's random choices (exploration) reproducible.
std::unique_ptr<TaskScheduler> MakeTaskScheduler(TaskSchedulerKind kind, uint64_t seed = 0);
// "round-robin" (also "") or "gradient": INVALID_ARGUMENT naming the known
// ones otherwise.
absl::StatusOr<TaskSchedulerKind> ParseTaskScheduler(std::string_view name);

}  // namespace tuneforge::search
