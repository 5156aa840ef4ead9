// ComputeDag: the ops of a tensor program in topological order, with the
// per-op access analysis that sketch rules and lowering ask about.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/tensor.h"

namespace tuneforge::te {

struct OpAnalysis {
  bool is_placeholder = false;
  bool is_output = false;          // no consumer inside the DAG
  bool has_reduction = false;
  // Every input read uses exactly this op's axes, in order (same shape).
  bool is_elementwise = false;
  // Injective (no reduction), reads each input at most with affine
  // single-axis indices, and calls no expensive intrinsic: safe and cheap to
  // inline into every consumer (Ansor's "always inline" rule).
  bool is_strictly_inlinable = false;
  // Data reuse worth tiling for (Ansor's multi-level tiling rule): a
  // reduction with an input that does not depend on some spatial axis of
  // extent > 1, or any op with two such inputs (an outer product).
  bool needs_multi_level_tiling = false;
  bool has_expensive_op = false;   // exp, log, tanh, ...
  // A compute op that reads no tensor: its values depend on its indices
  // alone (the transform matrices of a Winograd convolution).
  bool is_constant_matrix = false;
  // This op's axes (spatial 0..n-1, then its reduction's) that index a
  // constant matrix: unrolled, the matrix's entries become constants and
  // their zeros and ones fold away (Ansor's "simplify compute with constant
  // tensors" rule).
  std::vector<int> constant_index_axes;
  std::vector<int> producers;      // op indices this op reads
  std::vector<int> consumers;      // op indices reading this op
};

class ComputeDag {
 public:
  // Collects every op reachable from `outputs` and orders them: each op comes
  // after all ops it reads (depth-first, inputs in order of first use).
  static absl::StatusOr<ComputeDag> Create(const std::vector<Tensor>& outputs);
  // Keeps the given op order, which must be topological (every op after the
  // ops it reads, all of them listed) with unique names. Schedule steps that
  // insert stages (cache_read, cache_write, rfactor) need the new op at a
  // fixed index, which the depth-first order of Create does not promise.
  static absl::StatusOr<ComputeDag> CreateFromOps(std::vector<Tensor> ops);

  const std::vector<Tensor>& ops() const { return ops_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const Tensor& op(int i) const { return ops_[i]; }
  const OpAnalysis& analysis(int i) const { return analysis_[i]; }
  // Index of an op in ops(), or -1.
  int IndexOf(const TensorNode* op) const;
  // Placeholders in op order, then outputs in op order: the kernel's arguments.
  std::vector<int> ArgumentOps() const;
  std::vector<int> InputOps() const;
  std::vector<int> OutputOps() const;
  // True when `consumer` reads `producer` (at least once) and every such read
  // uses exactly the consumer's axes in order, with equal shapes (Ansor's
  // ElementWiseMatch): the consumer can be fused into the producer's tiles.
  // The consumer's other inputs (a broadcast bias) do not matter.
  bool ReadsElementwise(int consumer, int producer) const;

  // Floating-point operations of one run (a multiply-add counts 2).
  double flops() const { return flops_; }
  // A stable text that two equal programs print identically, whatever their
  // variable names: the basis of the workload key.
  const std::string& canonical_text() const { return canonical_text_; }
  // 16 hex digits of a stable 64-bit hash of canonical_text().
  std::string workload_key() const;
  // Human-readable listing of the ops, one per line.
  std::string ToString() const;

 private:
  // Fills analysis_, flops_ and canonical_text_ from ops_.
  void AnalyzeOps();

  std::vector<Tensor> ops_;
  std::vector<OpAnalysis> analysis_;
  double flops_ = 0;
  std::string canonical_text_;
};

using ComputeDagPtr = std::shared_ptr<const ComputeDag>;

}  // namespace tuneforge::te
