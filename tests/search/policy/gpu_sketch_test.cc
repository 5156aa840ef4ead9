// Ansor's GPU sketches (SSSRRSRS tiling bound to blocks, vthreads and
// threads, shared-memory copies fetched by all threads, accumulators in
// registers) and their sampled programs: every sketch of every op, and
// several random annotations of each, lowers to CUDA C within the launch
// limits that NVRTC compiles for sm_80 and sm_90.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "common/codegen/cuda/cuda_source.h"
#include "common/codegen/cuda/launch_limits.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "common/lower/lower.h"
#include "common/te/workload.h"
#include "search/annotation/annotation.h"
#include "search/sketch_generation.h"
#include "search/sketch_policy.h"
#include "search/cost_model/cost_model.h"
#include "common/te/interpreter.h"
#include "tests/search/policy/cuda_emulator.h"

namespace tuneforge::search {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<codegen::CudaModule> Emit(const schedule::State& s) {
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(s, lower::LowerOptions::Gpu());
  if (!f.ok()) return f.status();
  absl::StatusOr<codegen::CudaModule> k = codegen::EmitCudaSource(*f);
  if (!k.ok()) return k.status();
  if (absl::Status limits = codegen::CheckLaunchLimits(*k, codegen::GpuLimits{}); !limits.ok()) return limits;
  return k;
}

std::vector<Sketch> Sketches(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateGpuSketches(w->dag, GpuHardwareParams());
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  return sketches.ok() ? *sketches : std::vector<Sketch>{};
}

TEST(GpuSketchTest, AMatmulIsTiledForBlocksVThreadsAndThreadsWithSharedCopies) {
  std::vector<Sketch> sketches = Sketches("matmul:M=512,N=512,K=512");
  ASSERT_EQ(sketches.size(), 1u);
  const std::string derivation = absl::StrJoin(sketches[0].derivation, "; ");
  EXPECT_THAT(derivation, HasSubstr("add_cache_write"));
  EXPECT_THAT(derivation, HasSubstr("multi_level_tiling_with_fusion (fused at tile level 3)"));
  EXPECT_THAT(derivation, HasSubstr("A: add_shared_cache_read"));
  EXPECT_THAT(derivation, HasSubstr("B: add_shared_cache_read"));
  Rng rng(7);
  absl::StatusOr<schedule::State> s = SampleInitState(sketches[0].state, GpuHardwareParams(), rng);
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<codegen::CudaModule> k = Emit(*s);
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << s->ToString();
  EXPECT_GT(k->kernels[0].shared_bytes, 0);
  EXPECT_THAT(k->source, HasSubstr("__shared__"));
  EXPECT_THAT(k->source, HasSubstr("__syncthreads();"));
}

// Winograd on a GPU: the transforms unroll their matrix axes and bind the
// rest to blocks and threads; the input tile is gathered in each thread
// (Ansor's special compute location), the batched product tiled with shared
// copies. The kernel transform too: on a GPU it runs in every call (no
// layout rewrite precomputes it).
TEST(GpuSketchTest, WinogradGathersTheInputTileInsideEachThreadsTransform) {
  std::vector<Sketch> sketches = Sketches("conv2d_winograd:N=1,C=64,H=14,W=14,K=64,tile=2");
  ASSERT_FALSE(sketches.empty());
  const std::string derivation = absl::StrJoin(sketches[0].derivation, "; ");
  for (const char* d : {"input_tile: special_compute_location", "data_pack: simplify_const_tensor",
                        "inverse: simplify_const_tensor", "bgemm.local: multi_level_tiling_with_fusion",
                        "data_pack: add_shared_cache_read", "kernel_pack: simplify_const_tensor"})
    EXPECT_THAT(derivation, HasSubstr(d));
  Rng rng(5);
  absl::StatusOr<schedule::State> s = SampleInitState(sketches[0].state, GpuHardwareParams(), rng);
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<codegen::CudaModule> k = Emit(*s);
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << s->ToString();
  // The tile is a per-thread array, not a tensor of the whole input.
  EXPECT_THAT(k->source, ::testing::Not(HasSubstr("float* __restrict__ input_tile")));
}

// Every op of the library, small shapes (one test each, so they run in
// parallel: NVRTC takes 0.1-5 s per program, most of it unrolling).
const char* const kEveryOp[] = {
    "matmul:M=128,N=256,K=64",
    "matmul+relu:M=64,N=96,K=80",
    "batch_matmul:B=2,M=64,N=64,K=32",
    "dense+bias:M=16,N=128,K=64",
    "conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1",
    "conv2d+bias+relu:N=1,C=8,H=16,W=16,K=16,R=3,S=3,pad=1,stride=2",
    "depthwise_conv2d:N=1,C=32,H=28,W=28,R=3,S=3,pad=1,stride=2",
    "conv1d:N=1,C=8,W=32,K=16,S=3,pad=1",
    "max_pool2d:N=1,C=16,H=14,W=14,R=3,S=3,stride=2,pad=1",
    "relu:N=2,C=3,H=4,W=5",
    "conv3d:N=1,C=4,D=6,H=6,W=6,K=8,T=3,R=3,S=3,pad=1",
    "conv2d_transpose:N=1,C=8,H=7,W=7,K=4,R=3,S=3,stride=2,pad=1",
    "capsule_conv2d:N=1,H=6,W=6,C=4,K=4,R=3,S=3,pad=1,capsule=2",
    "avg_pool2d:N=1,C=8,H=10,W=10,R=2,S=2",
    "add+sigmoid:M=7,N=9",
    "conv2d:N=2,C=4,H=6,W=5,K=6,R=3,S=2,stride=2,groups=2",
    "conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,dilation=2,pad=2",
    "softmax:M=4,N=9",
    "norm:M=5,N=7",
    "layer_norm:M=3,N=10",
    "conv2d_winograd:N=1,C=16,H=14,W=14,K=16,tile=2",
};

class GpuSketchOfEveryOp : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuSketchOfEveryOp, EverySketchAndASampledProgramCompileForSm80AndSm90) {
  const std::string spec = GetParam();
  std::vector<Sketch> sketches = Sketches(spec);
  ASSERT_FALSE(sketches.empty());
  for (size_t i = 0; i < sketches.size(); ++i) {
    Rng rng(100 + i);
    absl::StatusOr<schedule::State> s = SampleInitState(sketches[i].state, GpuHardwareParams(), rng);
    ASSERT_TRUE(s.ok()) << spec << " sketch " << i << ": " << s.status();
    absl::StatusOr<codegen::CudaModule> k = Emit(*s);
    ASSERT_TRUE(k.ok()) << spec << " sketch " << i << ": " << k.status() << "\n" << s->ToString();
    if (!codegen::CudaCompilerAvailable()) GTEST_SKIP() << "built without the CUDA toolkit";
    for (const char* arch : {"sm_80", "sm_90"}) {
      absl::StatusOr<codegen::PtxModule> ptx = codegen::CompileCudaToPtx(k->source, arch);
      ASSERT_TRUE(ptx.ok()) << spec << " " << arch << ": " << ptx.status() << "\n" << k->source;
      for (const codegen::CudaKernel& kernel : k->kernels)
        EXPECT_THAT(ptx->ptx, HasSubstr(".entry " + kernel.name));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuSketchOfEveryOp, ::testing::ValuesIn(kEveryOp));

// Runs `state` on the CPU as a GPU would (a thread per CUDA thread,
// barriers, shared arrays per block) and compares with the reference.
void ExpectMatchesReference(const te::Workload& w, const schedule::State& state) {
  absl::StatusOr<codegen::CudaModule> k = Emit(state);
  ASSERT_TRUE(k.ok()) << k.status();
  const te::ComputeDag& dag = *w.dag;
  std::vector<te::NDArray> inputs, outputs;
  for (int i : dag.InputOps()) {
    inputs.push_back(*te::NDArray::Empty(dag.op(i)->dtype, dag.op(i)->shape));
    inputs.back().FillRandom(i + 1);
  }
  absl::StatusOr<std::vector<te::NDArray>> expected = te::Interpret(dag, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::vector<void*> args;
  for (te::NDArray& a : inputs) args.push_back(a.data());
  for (const te::NDArray& e : *expected) {
    outputs.push_back(*te::NDArray::Empty(e.dtype(), e.shape()));
    outputs.back().Fill(-777);  // an unwritten element cannot pass
  }
  for (te::NDArray& a : outputs) args.push_back(a.data());
  absl::Status ran = testing::EmulateCudaModule(*k, args);
  ASSERT_TRUE(ran.ok()) << ran;
  for (size_t o = 0; o < outputs.size(); ++o) {
    absl::StatusOr<te::CompareResult> c = te::Compare(outputs[o], (*expected)[o]);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(c->ok) << w.spec << ": " << c->Summary() << "\n" << state.ToString() << "\n" << k->source;
  }
}

// The sampled programs compute the right thing (checked to fail with
// __syncthreads() emulated as a no-op: the threads' shared fetches race).
TEST(GpuSketchTest, SampledProgramsComputeTheReferenceOutputsWhenRunAsOnAGpu) {
  const std::vector<std::string> workloads = {
    "matmul:M=64,N=48,K=40",
    "conv2d+bias+relu:N=1,C=8,H=10,W=10,K=16,R=3,S=3,pad=1",
    "depthwise_conv2d:N=1,C=16,H=12,W=12,R=3,S=3,pad=1,stride=2",
    "batch_matmul:B=2,M=16,N=32,K=24",
    "max_pool2d:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1",
      "conv2d_transpose:N=1,C=8,H=5,W=5,K=4,R=3,S=3,stride=2,pad=1",  // phases, then their interleaving
      "softmax:M=6,N=33",                                             // four kernels
      "conv2d_winograd:N=1,C=4,H=6,W=7,K=8,tile=2",  // unrolled transforms, the tile gathered inside
  };
  for (const std::string& spec : workloads) {
    absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
    ASSERT_TRUE(w.ok());
    std::vector<Sketch> sketches = Sketches(spec);
    ASSERT_FALSE(sketches.empty());
    Rng rng(11);
    for (int sample = 0; sample < 2; ++sample) {
      absl::StatusOr<schedule::State> s = SampleInitState(sketches[0].state, GpuHardwareParams(), rng);
      ASSERT_TRUE(s.ok()) << s.status();
      ExpectMatchesReference(*w, *s);
    }
  }
}

// A reduction with few outputs: a block per output, its threads sharing
// the reduction through partials in shared memory (cross-thread reduction),
// checked as a GPU would run it: softmax's row maxima and row sums (a block
// per row), and a norm (one block for the one output).
TEST(GpuSketchTest, ARowReductionIsSharedByTheThreadsOfABlock) {
  for (const char* spec : {"softmax:M=4,N=300", "norm:M=3,N=200"}) {
    const te::Workload w = *te::ParseWorkload(spec);
    std::vector<Sketch> sketches = Sketches(w.spec);
    const Sketch* cross = nullptr;
    for (const Sketch& s : sketches)
      if (absl::StrJoin(s.derivation, "; ").find("cross_thread_reduction") != std::string::npos) cross = &s;
    ASSERT_NE(cross, nullptr) << spec << ": " << sketches.size() << " sketches, none with cross-thread reduction";
    const int64_t rows = w.spec.rfind("softmax", 0) == 0 ? 4 : 1;
    Rng rng(3);
    for (int sample = 0; sample < 2; ++sample) {
      absl::StatusOr<schedule::State> s = SampleInitState(cross->state, GpuHardwareParams(), rng);
      ASSERT_TRUE(s.ok()) << s.status();
      absl::StatusOr<codegen::CudaModule> k = Emit(*s);
      ASSERT_TRUE(k.ok()) << k.status() << "\n" << s->ToString();
      bool shared_reduction = false;  // a block per row, partials in shared memory
      for (const codegen::CudaKernel& kernel : k->kernels)
        shared_reduction = shared_reduction || (kernel.grid[0] == rows && kernel.shared_bytes > 0);
      EXPECT_TRUE(shared_reduction) << spec << "\n" << s->ToString();
      ExpectMatchesReference(w, *s);
    }
  }
}

// Ansor's search on a GPU target: sampled, evolved (tile sizes and unroll
// mutated, crossovers) and learned from, every program it proposes is bound
// to blocks and threads within the limits and generates CUDA C; the best
// computes the product. The "times" are the model a test can afford here:
// more threads per block and more work per thread are faster.
TEST(GpuSketchTest, TheAnsorPolicyProposesOnlyProgramsAGpuCanRun) {
  const te::Workload w = *te::ParseWorkload("matmul:M=64,N=64,K=32");
  HardwareParams hw = GpuHardwareParams();
  auto model = std::make_shared<SharedCostModel>([] { return MakeRandomModel(5); });
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, hw, model, 5);
  std::optional<schedule::State> best;
  double best_seconds = 1e9;
  int proposed = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<MeasuredCandidate> results;
    for (const std::vector<schedule::Step>& steps : policy->Propose(16)) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(WithinGpuLimits(*s, hw)) << s->ToString();
      absl::StatusOr<codegen::CudaModule> k = Emit(*s);
      ASSERT_TRUE(k.ok()) << k.status() << "\n" << s->ToString();
      const double work = static_cast<double>(k->kernels[0].threads_per_block()) * (1 + k->kernels[0].local_bytes);
      const double seconds = 1e-3 / (1 + std::min(work, 1e5));
      results.push_back(MeasuredCandidate{steps, true, seconds});
      if (seconds < best_seconds) {
        best_seconds = seconds;
        best = *s;
      }
      ++proposed;
    }
    policy->Update(results);
  }
  EXPECT_GE(proposed, 40);
  ASSERT_TRUE(best.has_value());
  ExpectMatchesReference(w, *best);
}

}  // namespace
}  // namespace tuneforge::search
