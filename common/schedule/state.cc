#include "common/schedule/state.h"

#include <string>

#include "common/schedule/bound.h"
#include "common/schedule/recently_used.h"
#include "common/schedule/step_traits.h"
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {
namespace {

uint64_t Fnv1a64(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

int Stage::IterIndexOfNode(int node) const {
  for (int i = 0; i < static_cast<int>(iters.size()); ++i)
    if (iters[i].node == node) return i;
  return -1;
}

Stage MakeInitialStage(const te::Tensor& op) {
  Stage stage;
  stage.op = op;
  if (op->is_placeholder()) return stage;
  for (const te::IterVar& axis : op->axes)
    stage.nodes.push_back(IterNode{axis.var->name, axis.extent, IterKind::kSpatial});
  if (const te::Reduce* red = op->reduce())
    for (const te::IterVar& axis : red->axes)
      stage.nodes.push_back(IterNode{axis.var->name, axis.extent, IterKind::kReduce});
  for (int n = 0; n < static_cast<int>(stage.nodes.size()); ++n)
    stage.iters.push_back(Iterator{n, IterAnnotation::kNone});
  return stage;
}

State::State(te::ComputeDagPtr dag) : original_dag_(dag), dag_(std::move(dag)) {
  for (const te::Tensor& op : dag_->ops()) stages_.push_back(MakeInitialStage(op));
}

namespace {

// The programs of one sketch all start with the same DAG-rewriting steps
// (cache_write, cache_read, rfactor), and rebuilding the DAG for them is a
// large part of a replay, which the search does thousands of times a round.
// The state after such a leading run is kept, a few per thread.
class LeadingRewrites {
 public:
  // The state after steps[0, lead) of `dag`, replayed now or kept from before.
  absl::StatusOr<State> After(const te::ComputeDagPtr& dag, std::span<const Step> lead) {
    std::string key;
    for (const Step& step : lead) key += StepToString(step) + "\n";
    if (const Entry* e = kept_.Find([&](const Entry& e) { return e.dag == dag.get() && e.key == key; }))
      return e->state;
    absl::StatusOr<State> state = State::ReplayFrom(State(dag), lead);
    if (!state.ok()) return state;
    kept_.Add(Entry{dag.get(), std::move(key), *state});
    return state;
  }

 private:
  struct Entry {
    const te::ComputeDag* dag = nullptr;  // kept alive by `state`
    std::string key;
    State state;
  };
  RecentlyUsed<Entry> kept_;
};

}  // namespace

absl::StatusOr<State> State::Replay(te::ComputeDagPtr dag, const std::vector<Step>& steps) {
  size_t lead = 0;
  while (lead < steps.size() && RewritesDag(steps[lead])) ++lead;
  if (lead == 0) return ReplayFrom(State(std::move(dag)), steps);
  thread_local LeadingRewrites cache;
  absl::StatusOr<State> prefix = cache.After(dag, std::span<const Step>(steps).first(lead));
  if (!prefix.ok()) return prefix.status();
  return ReplayFrom(*std::move(prefix), std::span<const Step>(steps).subspan(lead));
}

absl::StatusOr<State> State::ReplayFrom(State state, std::span<const Step> steps) {
  // Bound inference is deferred: the other steps read no inferred extent
  // (a split's or fuse's derived extents are recomputed by the inference
  // itself), so one inference at the end gives the state that inferring
  // after every step gives. Only steps that rebuild the DAG read extents
  // (rfactor, the cache stages' axes): inference runs before them.
  const size_t first = state.steps_.size();
  bool stale = false;
  bool failed = false;
  for (const Step& step : steps) {
    if (stale && StepReachOf(step) == StepReach::kDag) {
      failed = !InferBound(&state).ok();
      stale = false;
    }
    failed = failed || !state.ApplyInPlace(step, /*infer_bounds=*/false).ok();
    if (failed) break;
    stale = stale || state.BoundsMayChange(step);
  }
  if (!failed && stale) failed = !InferBound(&state).ok();
  if (!failed) return state;
  // Replay step by step from the start for the error an eager replay gives
  // (which step, and why). A list fails here only if it fails eagerly: the
  // steps' own checks read no inferred extent, and the final inference is
  // the eager one's. (The converse need not hold: a list whose final state
  // is sound is accepted even if a state on the way was not.)
  std::vector<Step> all(state.steps_.begin(), state.steps_.begin() + static_cast<std::ptrdiff_t>(first));
  all.insert(all.end(), steps.begin(), steps.end());
  State eager(state.original_dag_);
  for (const Step& step : all)
    if (absl::Status s = eager.ApplyInPlace(step, /*infer_bounds=*/true); !s.ok()) return s;
  return eager;
}

absl::Status State::Apply(const Step& step) {
  // Steps check everything they can before editing, but bound inference
  // runs after the edit: work on a copy so a failure leaves *this as it was.
  State next = *this;
  if (absl::Status s = next.ApplyInPlace(step, /*infer_bounds=*/true); !s.ok()) return s;
  *this = std::move(next);
  return absl::OkStatus();
}

absl::Status State::ApplyInPlace(const Step& step, bool infer_bounds) {
  const StepContext ctx{this, static_cast<int>(steps_.size()), StepKindName(step)};
  absl::Status applied = std::visit([&](const auto& s) { return ApplyStep(s, ctx); }, step);
  if (!applied.ok()) return applied;
  steps_.push_back(step);
  hash_ = 0;
  if (!infer_bounds || !BoundsMayChange(step)) return absl::OkStatus();
  if (absl::Status bound = InferBound(this); !bound.ok()) return ctx.Error(bound.message());
  return absl::OkStatus();
}

bool State::BoundsMayChange(const Step& step) const {
  switch (StepReachOf(step)) {
    case StepReach::kDag:
    case StepReach::kPlacement:
      return true;
    case StepReach::kAnnotation:
      // Binding a loop to threads (or vthreads) relaxes the region of a
      // shared-memory copy computed inside it (bound.cc).
      if (const auto* a = std::get_if<AnnotationStep>(&step)) {
        if (IsThreadBinding(a->annotation) || a->annotation == IterAnnotation::kVThread)
          for (const Stage& other : stages_)
            if (other.scope == "shared" && !std::holds_alternative<ComputeRoot>(other.location)) return true;
      }
      return false;
    case StepReach::kOwnLoops:
      break;
  }
  // A split, reorder or fuse changes only its own stage's loops. Those loops
  // bound other stages only when some stage is computed inside them, or
  // when one of the stage's producers is computed somewhere else than at
  // root (its region follows this stage's loops; an inlined producer passes
  // its own producers' regions on).
  const int s = StepStage(step);
  for (const Stage& other : stages_)
    if (const auto* at = std::get_if<ComputeAtIter>(&other.location); at && at->target_stage == s) return true;
  for (int producer : dag_->analysis(s).producers)
    if (!std::holds_alternative<ComputeRoot>(stages_[producer].location)) return true;
  return false;
}

int State::StageIndex(const std::string& name) const {
  for (int i = 0; i < num_stages(); ++i)
    if (stages_[i].op->name == name) return i;
  return -1;
}

uint64_t State::Hash() const {
  if (hash_ == 0) hash_ = HashSteps(steps_);
  return hash_;
}

uint64_t HashSteps(const std::vector<Step>& steps) {
  uint64_t h = Fnv1a64("tuneforge-steps-v1\n");
  for (const Step& step : steps) h = Fnv1a64(StepToString(step) + "\n", h);
  return h;
}

}  // namespace tuneforge::schedule
