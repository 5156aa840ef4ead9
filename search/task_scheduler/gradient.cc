#include "search/task_scheduler/gradient.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace tuneforge::search {
namespace {

// The latency a task without a correct program counts as: far above any
// measured one, so that such a task is tuned first (until it rests).
constexpr double kNoProgramSeconds = 1e10;

double Latency(double best_seconds) { return best_seconds > 0 ? best_seconds : kNoProgramSeconds; }

}  // namespace

GradientScheduler::GradientScheduler(GradientSchedulerOptions options)
    : options_(options), rng_(options.seed) {}

void GradientScheduler::Observe(const std::vector<TaskState>& tasks) {
  history_.resize(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    History& h = history_[i];
    const TaskState& t = tasks[i];
    const double before = h.seen.empty() ? 0 : h.seen.back().best_seconds;
    const bool improved = t.best_seconds > 0 && (before <= 0 || t.best_seconds < before);
    if (improved || h.seen.empty()) h.last_improved_at = t.trials;
    // Trials grow when candidates are issued, the best when their results
    // arrive: a better best for the same trials updates that observation.
    if (!h.seen.empty() && h.seen.back().trials == t.trials)
      h.seen.back().best_seconds = t.best_seconds;
    else
      h.seen.push_back({t.trials, t.best_seconds});
  }
}

bool GradientScheduler::Resting(const TaskState& t, const History& h) const {
  return options_.early_stop_trials > 0 && t.trials - h.last_improved_at >= options_.early_stop_trials;
}

bool GradientScheduler::CanGoOn(const TaskState& t, const History& h) const {
  return !t.exhausted && !Resting(t, h);
}

double GradientScheduler::Gradient(size_t i, const std::vector<TaskState>& tasks) const {
  const TaskState& t = tasks[i];
  const History& h = history_[i];
  const double g = Latency(t.best_seconds);
  // Backward: how fast its best fell over the last few observations (once
  // it had a correct program then: the first one is no measure of progress).
  double backward = 0;
  const size_t window = static_cast<size_t>(std::max(1, options_.backward_window));
  if (h.seen.size() > window) {
    const Observation& then = h.seen[h.seen.size() - 1 - window];
    const Observation& now = h.seen.back();
    if (now.trials > then.trials && then.best_seconds > 0)
      backward = (now.best_seconds - then.best_seconds) / static_cast<double>(now.trials - then.trials);
  }
  // Forward: optimistic (as much again as the time spent so far) and
  // bounded by what similar tasks reach.
  double forward = -g / static_cast<double>(std::max<int64_t>(t.trials, 1));
  double best_similar_rate = 0;  // FLOP/s
  for (size_t k = 0; k < tasks.size(); ++k)
    if (!tasks[i].group.empty() && tasks[k].group == tasks[i].group && tasks[k].best_seconds > 0)
      best_similar_rate = std::max(best_similar_rate, tasks[k].flops / tasks[k].best_seconds);
  if (best_similar_rate > 0 && t.flops > 0)
    forward = std::min(forward, options_.beta * t.flops / best_similar_rate - g);
  // A form slower than another form of its task (forms are alternatives:
  // the faster one runs) shortens the model only below that one: its past
  // progress did not, and of its expected progress only what goes below.
  // Forms compute the same outputs with more or fewer FLOPs: at the best
  // FLOP rate any form of the task has reached, this one would take C_i / R.
  // Only a form with fewer FLOPs than the fastest one can lie below it there,
  // by that much room (Ansor's similarity term with beta = 1: the forms run
  // on one machine); one that cannot has gradient 0 and gets exploration's
  // trials only (Next: not even while the fastest form rests). Without this,
  // a form with 30 % fewer FLOPs but a slower start (Winograd) got half.
  // (The fastest form is another one exactly when it is faster than g.)
  const double fastest = FastestFormSeconds(tasks, i);
  if (fastest > 0 && g > fastest) {
    backward = 0;
    forward = std::min(0.0, forward + (g - fastest) / static_cast<double>(std::max<int64_t>(t.trials, 1)));
    if (const double rate = FastestFormRate(tasks, i); rate > 0 && t.flops > 0) {
      const double room = t.flops / rate - fastest;
      forward = room < 0 ? std::min(forward, room) : 0;
    }
  }
  return t.weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

size_t GradientScheduler::Next(const std::vector<TaskState>& tasks) {
  if (tasks.empty()) return 0;
  Observe(tasks);
  gradients_.assign(tasks.size(), 0);
  // Warm-up: the task with the fewest trials below warmup_trials first.
  std::optional<size_t> warming;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (!tasks[i].exhausted && tasks[i].trials < options_.warmup_trials &&
        (!warming || tasks[i].trials < tasks[*warming].trials))
      warming = i;
  if (warming) return *warming;

  std::vector<size_t> open;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (CanGoOn(tasks[i], history_[i])) open.push_back(i);
  if (open.empty()) {  // every task rests or is exhausted: those that rest may go on
    for (size_t i = 0; i < tasks.size(); ++i)
      if (!tasks[i].exhausted) open.push_back(i);
  }
  if (open.empty()) return 0;  // nothing can go on; the caller sees no candidates
  if (std::uniform_real_distribution<double>(0, 1)(rng_) < options_.epsilon)
    return open[std::uniform_int_distribution<size_t>(0, open.size() - 1)(rng_)];
  size_t best = open.front();
  double best_gradient = std::numeric_limits<double>::infinity();
  auto consider = [&](size_t i) {
    gradients_[i] = Gradient(i, tasks);
    if (gradients_[i] < best_gradient) {
      best_gradient = gradients_[i];
      best = i;
    }
  };
  for (size_t i : open) consider(i);
  // A task rests so that others may gain; when none that can go on expects
  // to (a form with no room below the faster one), the resting ones go on.
  if (best_gradient >= 0)
    for (size_t i = 0; i < tasks.size(); ++i)
      if (!tasks[i].exhausted && Resting(tasks[i], history_[i])) consider(i);
  return best;
}

}  // namespace tuneforge::search
