#include "common/schedule/state.h"

#include "common/schedule/bound.h"
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

absl::StatusOr<State> State::Replay(te::ComputeDagPtr dag, const std::vector<Step>& steps) {
  return ReplayFrom(State(std::move(dag)), steps);
}

absl::StatusOr<State> State::ReplayFrom(State state, std::span<const Step> steps) {
  // In place: on an error the half-built state is thrown away anyway.
  for (const Step& step : steps)
    if (absl::Status s = state.ApplyInPlace(step); !s.ok()) return s;
  return state;
}

absl::Status State::Apply(const Step& step) {
  // Steps check everything they can before editing, but bound inference
  // runs after the edit: work on a copy so a failure leaves *this as it was.
  State next = *this;
  if (absl::Status s = next.ApplyInPlace(step); !s.ok()) return s;
  *this = std::move(next);
  return absl::OkStatus();
}

absl::Status State::ApplyInPlace(const Step& step) {
  const StepContext ctx{this, static_cast<int>(steps_.size()), StepKindName(step)};
  absl::Status applied = std::visit([&](const auto& s) { return ApplyStep(s, ctx); }, step);
  if (!applied.ok()) return applied;
  steps_.push_back(step);
  hash_ = 0;
  // Annotations, pragmas and storage alignment change no loop and no
  // placement, and bound inference reads none of them: it is skipped after
  // them (replay is the search's inner loop).
  if (std::holds_alternative<AnnotationStep>(step) || std::holds_alternative<PragmaStep>(step) ||
      std::holds_alternative<StorageAlignStep>(step))
    return absl::OkStatus();
  if (absl::Status bound = InferBound(this); !bound.ok()) return ctx.Error(bound.message());
  return absl::OkStatus();
}

int State::StageIndex(const std::string& name) const {
  for (int i = 0; i < num_stages(); ++i)
    if (stages_[i].op->name == name) return i;
  return -1;
}

uint64_t State::Hash() const {
  if (hash_ != 0) return hash_;
  uint64_t h = Fnv1a64("tuneforge-steps-v1\n");
  for (const Step& step : steps_) h = Fnv1a64(StepToString(step) + "\n", h);
  hash_ = h;
  return h;
}

}  // namespace tuneforge::schedule
