// The gradient-based task scheduler of the Ansor paper (section 6): the
// objective is the estimated end-to-end latency, sum over tasks of weight x
// best latency, and each share goes to the task whose next trials are
// expected to shorten it most.
//
//   warm-up        round-robin (fewest trials first) until every task has
//                  warmup_trials: a task's first programs are random samples,
//                  and a gradient from one of them ranks noise (one slow
//                  sample would win whole rounds for its task)
//   exploration    with probability epsilon, a random task that can go on
//   exploitation   the task with the most negative gradient
//                    dF/dt_i ~ w_i * ( alpha * backward_i + (1 - alpha) * forward_i )
//                  backward_i: the recent improvement of its best, per trial
//                  forward_i:  min( -g_i / t_i,  beta * C_i / max_k V_k - g_i )
//                  (g latency, t trials, C FLOPs, V FLOP/s of the best of a
//                  similar task k: the task cannot be much slower than its
//                  peers, nor improve faster than in proportion to its time)
//   forms          of a task computed by other algorithms (TaskState::
//                  form_of), one slower than another counts only the
//                  progress expected below that one (the faster one runs),
//                  and only if at the best FLOP rate of the task's forms it
//                  would be faster (fewer FLOPs): then by that much room
//   early stop     a task whose best has not improved over its last
//                  early_stop_trials trials is passed over while another can
//                  go on and expects a gain
//
// The scheduler keeps each task's history (trials, best) itself: it sees a
// task's state every time it is asked.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::search {

struct GradientSchedulerOptions {
  double alpha = 0.2;           // weight of the backward (history) term
  double beta = 2.0;            // how far a task may trail its similar tasks
  int backward_window = 3;      // observations the recent improvement spans
  double epsilon = 0.05;        // probability of a random pick
  int64_t warmup_trials = 8;    // trials every task gets before gradients decide
  int64_t early_stop_trials = 256;  // trials without improvement before a task rests
  uint64_t seed = 0;
};

class GradientScheduler : public TaskScheduler {
 public:
  explicit GradientScheduler(GradientSchedulerOptions options = {});
  size_t Next(const std::vector<TaskState>& tasks) override;
  std::string_view name() const override { return "gradient"; }

  // The gradient of each task as the last Next saw it (for tests and the
  // progress display); 0 for tasks in warm-up, exhausted or resting.
  const std::vector<double>& last_gradients() const { return gradients_; }

 private:
  struct Observation {
    int64_t trials = 0;
    double best_seconds = 0;
  };
  struct History {
    // One per change of the task's trials; the last one's best follows the
    // results of those trials as they come in.
    std::vector<Observation> seen;
    int64_t last_improved_at = 0;    // trials when its best last got better
  };

  void Observe(const std::vector<TaskState>& tasks);
  bool CanGoOn(const TaskState& t, const History& h) const;
  bool Resting(const TaskState& t, const History& h) const;
  double Gradient(size_t i, const std::vector<TaskState>& tasks) const;

  GradientSchedulerOptions options_;
  std::mt19937_64 rng_;
  std::vector<History> history_;
  std::vector<double> gradients_;
};

}  // namespace tuneforge::search
