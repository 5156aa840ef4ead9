// The register tile of a CPU program: the accumulators a reducing stage
// updates inside its innermost reduction loop. They stay in registers only
// if the ISA has that many; beyond, every multiply-add loads and stores its
// accumulator, and the unrolled tile is a body of hundreds of statements
// that LLVM spends seconds allocating registers for.
//
// Measured on this project's 1,000-trial tunings (ansor, 2 threads, Intel
// Xeon with AVX-512): programs needing more than 32 vectors of accumulators
// were 51 % of the strided depthwise conv's candidates and 31 % of the 7x7
// stride-2 conv's, compiled 2-3x slower than the rest (69 % and 50 % of all
// compile time), and the fastest of them ran at 0.28-0.58x of each tuning's
// best (matmul and conv 3x3 too; 0.76x in a Winograd tuning, whose best
// tiles fill exactly 32). So they are neither sampled, bred nor descended to
// (bench/search/results/register-file-limit-*).
#include <algorithm>
#include <variant>

#include "search/annotation/annotation.h"

namespace tuneforge::search {

int64_t AccumulatorRegisters(const schedule::Stage& stage, int vector_lanes) {
  int innermost_reduction = -1;
  for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
    const schedule::IterNode& node = stage.iter_node(i);
    if (node.kind == schedule::IterKind::kReduce && node.extent > 1) innermost_reduction = i;
  }
  if (innermost_reduction < 0) return 0;  // nothing is carried across a reduction
  const int64_t lanes = std::max(vector_lanes, 1);
  int64_t registers = 1;
  for (int i = innermost_reduction + 1; i < static_cast<int>(stage.iters.size()); ++i) {
    const schedule::IterNode& node = stage.iter_node(i);
    if (node.kind != schedule::IterKind::kSpatial) continue;
    const bool vector = stage.iters[i].annotation == schedule::IterAnnotation::kVectorize;
    registers *= vector ? (node.extent + lanes - 1) / lanes : node.extent;
  }
  return registers;
}

bool WithinRegisterFile(const schedule::State& state, const HardwareParams& hw) {
  if (hw.gpu) return true;  // a GPU thread's accumulators: WithinGpuLimits
  for (const schedule::Stage& stage : state.stages())
    if (!stage.is_placeholder() && !std::holds_alternative<schedule::ComputeInlined>(stage.location) &&
        AccumulatorRegisters(stage, hw.vector_lanes) > hw.vector_registers)
      return false;
  return true;
}

}  // namespace tuneforge::search
