// The loop State of a ComputeDag: per op, its loop nest (iterators with
// extents, kinds and annotations), where it is computed, and how its
// iterators derive from the op's axes. A State is fully determined by
// (original DAG, steps): State::Replay(dag, steps) reproduces it exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/schedule/steps.h"
#include "common/te/compute_dag.h"

namespace tuneforge::schedule {

struct EffectiveStages;  // effective_body.h

enum class IterKind : uint8_t { kSpatial, kReduce };

// A node of a stage's iterator graph. Nodes 0..n-1 are the op's axes
// (spatial axes in order, then the reduction axes); split and fuse add nodes.
struct IterNode {
  std::string name;
  int64_t extent = 1;
  IterKind kind = IterKind::kSpatial;
};

// parent = ((children[0] * extent(children[1]) + children[1]) * ... ) + children.back();
// when product(child extents) > extent(parent) the tail is guarded.
// Child extents follow the step's lengths, as te's chain of two-way splits:
// inner_to_outer, from the innermost child out, child = min(length, rest)
// and rest = ceil(rest / length), the outermost child taking the final rest
// (mirrored for outer lengths). A length larger than what is left is
// clamped, so a stage computed at a small tile gets loops of extent 1, not
// guarded tails. Bound inference recomputes them when the parent changes.
struct SplitRelation {
  int parent = 0;
  std::vector<int> children;  // outermost first
  bool inner_to_outer = true;
  // The lengths of the split step as given (children.size() - 1 of them, in
  // the step's order), so bound inference can recompute the children from
  // them even after clamping a child to a smaller parent (as te does).
  std::vector<int64_t> lengths;
};
// parents[k] = (child / product(extent(parents[k+1..]))) % extent(parents[k]).
struct FuseRelation {
  std::vector<int> parents;  // outermost first
  int child = 0;
};
using IterRelation = std::variant<SplitRelation, FuseRelation>;

// One loop of the stage's current nest: a leaf of the iterator graph.
struct Iterator {
  int node = 0;
  IterAnnotation annotation = IterAnnotation::kNone;
};

struct ComputeRoot {};
struct ComputeInlined {};
// Inside the loop of `target_stage` over iterator node `target_node`.
struct ComputeAtIter {
  int target_stage = 0;
  int target_node = 0;
};
using ComputeLocation = std::variant<ComputeRoot, ComputeInlined, ComputeAtIter>;

struct StorageAlign {
  int axis = 0;  // dimension of the stage's output
  int64_t factor = 0;
  int64_t offset = 0;
};

struct Stage {
  te::Tensor op;                  // == State::dag().op(stage index)
  std::vector<IterNode> nodes;    // empty for placeholders
  std::vector<IterRelation> relations;  // in the order the steps made them
  std::vector<Iterator> iters;    // current loops, outermost first
  ComputeLocation location = ComputeRoot{};
  int64_t auto_unroll_max_step = 0;     // 0: no pragma
  std::string scope = "global";          // storage scope of the output buffer
  std::vector<StorageAlign> storage_align;

  bool is_placeholder() const { return op->is_placeholder(); }
  const IterNode& iter_node(int iter_index) const { return nodes[iters[iter_index].node]; }
  int num_spatial_axes() const { return static_cast<int>(op->axes.size()); }
  // Index in `iters` of the leaf `node`, or -1.
  int IterIndexOfNode(int node) const;
};

class State {
 public:
  // The untransformed state: every op computed at root in its own nest of
  // the op's axes (spatial, then reduction).
  explicit State(te::ComputeDagPtr dag);
  // Initial state of `dag` with `steps` applied in order; the first invalid
  // step's error names it (index and kind) and what is wrong.
  static absl::StatusOr<State> Replay(te::ComputeDagPtr dag, const std::vector<Step>& steps);
  // `prefix` (a replayed state) with `steps` applied after its own: the same
  // state as replaying all of them from the start, without redoing the prefix.
  static absl::StatusOr<State> ReplayFrom(State prefix, std::span<const Step> steps);

  // Validates `step` against this state and applies it; on error the state
  // is unchanged and the message names the step and the problem.
  absl::Status Apply(const Step& step);

  const std::vector<Stage>& stages() const { return stages_; }
  const Stage& stage(int i) const { return stages_[i]; }
  int num_stages() const { return static_cast<int>(stages_.size()); }
  const std::vector<Step>& steps() const { return steps_; }
  // The workload's DAG, before any step.
  const te::ComputeDagPtr& original_dag() const { return original_dag_; }
  // The DAG after cache_read / cache_write / rfactor (stage i is op i).
  const te::ComputeDagPtr& dag() const { return dag_; }
  // Index of the stage whose op is named `name`, or -1.
  int StageIndex(const std::string& name) const;

  // Stable hash of the steps (equal step lists, equal hash): FNV-1a of their
  // canonical text (StepToString), the same in every process and build.
  uint64_t Hash() const;
  // Stages with their iterators (index, name, extent, kind, annotation) and
  // compute locations: what a schedule author needs to write the next step.
  std::string ToString() const;

  // ---- For step implementations (common/schedule/steps/*.cc) -------------
  std::vector<Stage>& mutable_stages() { return stages_; }
  void set_dag(te::ComputeDagPtr dag) { dag_ = std::move(dag); }

  // ---- For effective_body.cc ---------------------------------------------
  // The effective bodies last computed for this state or a state it was
  // copied from: a memo that EffectiveStagesOf() checks still fits.
  const std::shared_ptr<const EffectiveStages>& effective_memo() const { return effective_memo_; }
  void set_effective_memo(std::shared_ptr<const EffectiveStages> memo) { effective_memo_ = std::move(memo); }

 private:
  // Apply without the copy that keeps *this unchanged on error (Replay);
  // with `infer_bounds` false the extents are left for the caller to infer.
  absl::Status ApplyInPlace(const Step& step, bool infer_bounds);
  // False when bound inference after `step` (just applied) could change
  // nothing: it is skipped then (replay is the search's inner loop).
  bool BoundsMayChange(const Step& step) const;

  te::ComputeDagPtr original_dag_;
  te::ComputeDagPtr dag_;
  std::vector<Stage> stages_;
  std::vector<Step> steps_;
  // Hash() of steps_, computed on first use (the search hashes every state
  // several times); 0: not yet.
  mutable uint64_t hash_ = 0;
  // Bound inference after each step needs every stage's body with the
  // inlined stages substituted, which only ops and inlining change (not
  // splits, reorders or annotations): copies share it until they do.
  std::shared_ptr<const EffectiveStages> effective_memo_;
};

// A fresh, untransformed stage for `op` (nodes = axes, then reduction axes).
Stage MakeInitialStage(const te::Tensor& op);

// State::Hash of the state these steps replay to, without replaying them
// (the hash is of the steps alone): what a search needs to tell a proposal
// it has seen.
uint64_t HashSteps(const std::vector<Step>& steps);

}  // namespace tuneforge::schedule
