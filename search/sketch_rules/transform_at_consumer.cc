// Transform at its consumer (ours, CPU): a constant-matrix transform whose
// one consumer gathers its tiles back into a tensor (Winograd's inverse
// transform, read by the output as inverse[oh % m, ow % m, tile(oh, ow), k])
// is computed inside that consumer, one row of tiles and one
// vector of channels at a time: the consumer's first gathered axis is split
// by the tile size m, its channel axis by a vector; the transform keeps its
// matrix axes unrolled around a vector of channels, as simplify_const_tensor
// tiles it, and is computed at the consumer's last outer loop. The transform
// then fills an m x m x (tiles in a row) x lanes local array that the
// gathering reads while it is in L1: the whole transformed output is never
// stored and re-read, and the program has one parallel pass fewer (a conv
// 3x3 of 256 channels at 14x14 ran 2-4 % faster by hand, best of rounds).
// In a model's task an element-wise epilogue (bias, relu) reads the
// gathering; the gathering is then also derived inlined into it, with the
// transform computed inside the epilogue.
// Where it applies, it replaces simplify_const_tensor's variant at root:
// with both, 1,000-trial tunings of that conv that settled at root ended
// 0.98-1.00x oneDNN's own Winograd conv and those that found this sketch
// 1.11-1.29x (twice the sketches spread the samples thinner).
#include <optional>

#include "common/te/expr_util.h"
#include "search/annotation/tile_lengths.h"
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

// How the consumer reads the transform, in the consumer's axes.
struct GatheringRead {
  int consumer = -1;
  int gathered_axis = -1;  // the first consumer axis read as axis % m for a matrix axis of extent m
  int64_t tile = 0;        // that m
  int channel_axis = -1;   // the consumer axis that reads the transform's last (vector) axis as it is
  int stage_channel_axis = -1;
};

int ConsumerAxisOf(const te::Tensor& op, const te::Expr& e) {
  const auto* ref = e.as<te::VarRef>();
  if (!ref) return -1;
  for (size_t i = 0; i < op->axes.size(); ++i)
    if (op->axes[i].var.get() == ref->var.get()) return static_cast<int>(i);
  return -1;
}

// The consumer's one read of `stage`, when every constant-matrix spatial
// axis of the stage is read as (consumer axis) % (its extent) and the
// stage's last non-matrix axis as a bare consumer axis; consumer -1 else.
GatheringRead FindGatheringRead(const schedule::State& state, int stage) {
  const te::OpAnalysis& a = state.dag()->analysis(stage);
  if (a.consumers.size() != 1) return {};
  const int consumer = a.consumers[0];
  const te::OpAnalysis& c = state.dag()->analysis(consumer);
  if (c.has_reduction || !IsUntouchedComputeStage(state, consumer)) return {};
  const te::Tensor& producer = state.stage(stage).op;
  const te::Tensor& reader = state.stage(consumer).op;
  std::vector<const te::TensorRead*> reads;
  te::PostOrderVisit(reader->body, [&](const te::Expr& e) {
    const auto* read = e.as<te::TensorRead>();
    if (read && read->tensor.get() == producer.get()) reads.push_back(read);
  });
  if (reads.size() != 1) return {};
  GatheringRead g;
  const int spatial = static_cast<int>(producer->axes.size());
  for (int i = 0; i < spatial; ++i)
    if (!IsConstantIndexAxis(a, i)) g.stage_channel_axis = i;
  if (g.stage_channel_axis < 0) return {};
  g.channel_axis = ConsumerAxisOf(reader, reads[0]->indices[g.stage_channel_axis]);
  if (g.channel_axis < 0) return {};
  for (int i = 0; i < spatial; ++i) {
    if (!IsConstantIndexAxis(a, i)) continue;
    const auto* mod = reads[0]->indices[i].as<te::Binary>();
    const auto* m = mod ? mod->b.as<te::IntImm>() : nullptr;
    const int axis = mod && mod->op == te::BinOp::kFloorMod ? ConsumerAxisOf(reader, mod->a) : -1;
    if (axis < 0 || !m || m->value != producer->axes[i].extent || axis == g.channel_axis) return {};
    if (g.gathered_axis < 0 || axis < g.gathered_axis) {
      g.gathered_axis = axis;
      g.tile = m->value;
    }
  }
  if (g.gathered_axis < 0) return {};
  g.consumer = consumer;
  return g;
}

class TransformAtConsumerRule : public SketchRule {
 public:
  const char* name() const override { return "transform_at_consumer"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const override {
    if (!IsConstantMatrixTransform(state, stage)) return RuleDecision::kSkip;
    // Without a vector of channels the transform would run scalar per
    // channel, or over all channels at once: simplify_const_tensor's
    // variant at root then.
    const GatheringRead g = FindGatheringRead(state, stage);
    return g.consumer >= 0 && Lanes(state, stage, g, hw) > 1 ? RuleDecision::kApplyAndSkipRest
                                                             : RuleDecision::kSkip;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams& hw) const override {
    const GatheringRead g = FindGatheringRead(state, stage);
    if (g.consumer < 0) return {};
    const int64_t lanes = Lanes(state, stage, g, hw);
    std::vector<DerivedState> out;
    if (std::optional<schedule::State> at = ComputedAt(state, stage, g, g.consumer, lanes))
      out.push_back(DerivedState{*std::move(at), stage - 1, "in the gathering"});
    // A model's task goes on after the gathering (bias, relu): the gathering
    // inlined into that element-wise epilogue (same axes), the transform
    // computed there, the whole chain is one pass.
    const int epilogue = SingleElementwiseConsumer(state, g.consumer);
    schedule::State inlined = state;
    if (epilogue >= 0 && inlined.Apply(schedule::ComputeInlineStep{g.consumer}).ok())
      if (std::optional<schedule::State> at = ComputedAt(inlined, stage, g, epilogue, lanes))
        out.push_back(DerivedState{*std::move(at), stage - 1, "in the epilogue"});
    return out;
  }

 private:
  // `state` with the transform computed inside `consumer`: the gathering,
  // or the epilogue it is inlined into (its axes are the gathering's).
  static std::optional<schedule::State> ComputedAt(const schedule::State& state, int stage, GatheringRead g,
                                                   int consumer, int64_t lanes) {
    g.consumer = consumer;
    schedule::State next = state;
    const int last_outer = SplitConsumer(next, g, lanes);
    if (last_outer < 0 || !TileTransform(next, stage, g.stage_channel_axis, lanes) ||
        !next.Apply(schedule::ComputeAtStep{stage, consumer, last_outer}).ok())
      return std::nullopt;
    return next;
  }

  static int64_t Lanes(const schedule::State& state, int stage, const GatheringRead& g, const HardwareParams& hw) {
    return DividingVectorLength(state.stage(stage).iter_node(g.stage_channel_axis).extent, hw.vector_lanes);
  }

  // Splits the channel axis by `lanes` and the gathered axis by the tile;
  // outer loops: the axes before the gathered one and both outer parts;
  // inner: both inner parts and the other axes, each group in axis order.
  // Returns the last outer loop (where the transform is computed), -1 when
  // the state refuses a step.
  static int SplitConsumer(schedule::State& next, const GatheringRead& g, int64_t lanes) {
    const int n = static_cast<int>(next.stage(g.consumer).iters.size());
    for (int axis = n - 1; axis >= 0; --axis) {
      if (axis != g.channel_axis && axis != g.gathered_axis) continue;
      const int64_t length = axis == g.channel_axis ? lanes : g.tile;
      if (!next.Apply(schedule::SplitStep{g.consumer, axis, {length}, true}).ok()) return -1;
    }
    std::vector<int> outer, inner;
    for (int axis = 0, at = 0; axis < n; ++axis) {
      if (axis == g.channel_axis || axis == g.gathered_axis) {
        outer.push_back(at++);
        inner.push_back(at++);
      } else {
        (axis < g.gathered_axis ? outer : inner).push_back(at++);
      }
    }
    std::vector<int> order = outer;
    order.insert(order.end(), inner.begin(), inner.end());
    if (!next.Apply(schedule::ReorderStep{g.consumer, order}).ok()) return -1;
    return static_cast<int>(outer.size()) - 1;
  }

  // The transform's channel axis split by `lanes`, its other spatial axes
  // left whole (the consumer's loops bound them), its matrix axes unrolled
  // around the vector.
  static bool TileTransform(schedule::State& next, int stage, int channel_axis, int64_t lanes) {
    const te::OpAnalysis& a = next.dag()->analysis(stage);
    const int n = static_cast<int>(next.stage(stage).iters.size());
    if (!next.Apply(schedule::SplitStep{stage, channel_axis, {lanes}, true}).ok()) return false;
    std::vector<int> outer, unrolled, vectorized;
    for (int axis = 0, at = 0; axis < n; ++axis) {
      if (IsConstantIndexAxis(a, axis)) {
        unrolled.push_back(at++);
      } else {
        outer.push_back(at++);
        if (axis == channel_axis) vectorized.push_back(at++);
      }
    }
    std::vector<int> order = outer;
    order.insert(order.end(), unrolled.begin(), unrolled.end());
    order.insert(order.end(), vectorized.begin(), vectorized.end());
    if (!next.Apply(schedule::ReorderStep{stage, order}).ok()) return false;
    for (int i = static_cast<int>(outer.size()); i < static_cast<int>(outer.size() + unrolled.size()); ++i)
      if (!next.Apply(schedule::AnnotationStep{stage, i, schedule::IterAnnotation::kUnroll}).ok()) return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeTransformAtConsumerRule() { return std::make_unique<TransformAtConsumerRule>(); }

}  // namespace tuneforge::search
