// CUDA C from lowered GPU schedules: the launch shape is read off the bound
// loops, shared-memory caches are fenced by __syncthreads, what a GPU cannot
// run is refused with its fix, and NVRTC compiles the source for sm_80 and
// sm_90 (where the toolkit is installed; no GPU is needed).
#include "common/codegen/cuda/cuda_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/codegen/cuda/gpu_probe.h"
#include "common/codegen/cuda/gpu_target.h"
#include "common/codegen/cuda/launch_limits.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/te/workload.h"

namespace tuneforge::codegen {
namespace {

using schedule::IterAnnotation;
using schedule::State;
using ::testing::HasSubstr;

State Replay(const std::string& spec, const std::vector<schedule::Step>& steps) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  absl::StatusOr<State> s = State::Replay(w->dag, steps);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : State(w->dag);
}

absl::StatusOr<CudaModule> Emit(const State& s) {
  absl::StatusOr<lower::LoweredFunc> f = lower::Lower(s, lower::LowerOptions::Gpu());
  if (!f.ok()) return f.status();
  return EmitCudaSource(*f);
}

// NVRTC compiles it for both architectures the tests promise.
void ExpectCompiles(const CudaModule& module) {
  if (!CudaCompilerAvailable()) GTEST_SKIP() << "built without the CUDA toolkit";
  for (const char* arch : {"sm_80", "sm_90"}) {
    absl::StatusOr<PtxModule> ptx = CompileCudaToPtx(module.source, arch);
    ASSERT_TRUE(ptx.ok()) << arch << ": " << ptx.status() << "\n" << module.source;
    for (const CudaKernel& k : module.kernels) EXPECT_THAT(ptx->ptx, HasSubstr(".entry " + k.name)) << arch;
  }
}

// matmul 64 x 64 x 32 (stage 2 is C: i j k): 8 x 4 tiles of 8 x 16 outputs,
// a block per tile and a thread per output.
std::vector<schedule::Step> BoundMatmul() {
  return {schedule::SplitStep{2, 0, {8}, true},              // i -> i.0 i.1
          schedule::SplitStep{2, 2, {16}, true},             // j -> j.0 j.1
          schedule::ReorderStep{2, {0, 2, 1, 3, 4}},         // i.0 j.0 i.1 j.1 k
          schedule::FuseStep{2, {0, 1}},                     // i.0@j.0 i.1 j.1 k
          schedule::FuseStep{2, {1, 2}},                     // i.0@j.0 i.1@j.1 k
          schedule::AnnotationStep{2, 0, IterAnnotation::kBlockX},
          schedule::AnnotationStep{2, 1, IterAnnotation::kThreadX}};
}

TEST(CudaSourceTest, TheLaunchShapeIsReadOffTheBoundLoops) {
  absl::StatusOr<CudaModule> k = Emit(Replay("matmul:M=64,N=64,K=32", BoundMatmul()));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->kernels[0].grid, (std::array<int64_t, 3>{32, 1, 1}));
  EXPECT_EQ(k->kernels[0].block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_THAT(k->source, HasSubstr("blockIdx.x"));
  EXPECT_THAT(k->source, HasSubstr("threadIdx.x"));
  EXPECT_THAT(k->source, HasSubstr("extern \"C\" __global__"));
  EXPECT_TRUE(CheckLaunchLimits(*k, GpuLimits{}).ok());
  ExpectCompiles(*k);
}

// GPUs do 64-bit integer math in several instructions: index arithmetic is
// int where every buffer and loop fits in 31 bits, long long elsewhere.
TEST(CudaSourceTest, IndexArithmeticIs32BitWhereEveryBufferFits) {
  absl::StatusOr<CudaModule> small = Emit(Replay("matmul:M=64,N=64,K=32", BoundMatmul()));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_THAT(small->source, HasSubstr("const int i_0_j_0 = blockIdx.x;"));
  EXPECT_THAT(small->source, HasSubstr("for (int k = 0; k < 32; ++k)"));
  EXPECT_THAT(small->source, ::testing::Not(HasSubstr("LL")));
  ExpectCompiles(*small);
  // 65536 x 65536 outputs: 2^32 elements, past an int.
  std::vector<schedule::Step> bind = {schedule::FuseStep{2, {0, 1}}, schedule::SplitStep{2, 0, {256}, true},
                                      schedule::AnnotationStep{2, 0, IterAnnotation::kBlockX},
                                      schedule::AnnotationStep{2, 1, IterAnnotation::kThreadX}};
  absl::StatusOr<CudaModule> large = Emit(Replay("add:M=65536,N=65536", bind));
  ASSERT_TRUE(large.ok()) << large.status();
  EXPECT_THAT(large->source, HasSubstr("const long long"));
  EXPECT_THAT(large->source, HasSubstr("LL"));
}

TEST(CudaSourceTest, ASharedMemoryCacheIsFencedBySyncthreads) {
  // A's rows of a block's tile (8 x 32) are fetched into shared memory once
  // per block, one element per thread: its 256 elements fused and bound to
  // threadIdx.x; the 128 threads of the product run on the first indices.
  std::vector<schedule::Step> steps = BoundMatmul();
  steps.push_back(schedule::CacheReadStep{0, "shared", {2}});  // A.shared is stage 1, C is 3
  steps.push_back(schedule::ComputeAtStep{1, 3, 0});           // at C's block loop
  steps.push_back(schedule::FuseStep{1, {0, 1}});
  steps.push_back(schedule::AnnotationStep{1, 0, IterAnnotation::kThreadX});
  absl::StatusOr<CudaModule> k = Emit(Replay("matmul:M=64,N=64,K=32", steps));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->source, HasSubstr("__shared__ float"));
  EXPECT_THAT(k->source, HasSubstr("__syncthreads();"));
  EXPECT_THAT(k->source, HasSubstr("< 128)"));  // the product's threads
  EXPECT_EQ(k->kernels[0].shared_bytes, 8 * 32 * 4);
  EXPECT_EQ(k->kernels[0].block[0], 256);
  ExpectCompiles(*k);
}

TEST(CudaSourceTest, ThreadsFetchTheirBlocksTileTogetherInsideTheReductionLoop) {
  // A's tile for one k.0 step (8 rows x 16 of k) cached inside the thread
  // loop: 128 elements, one per thread of the block, fetched every k.0.
  std::vector<schedule::Step> steps = BoundMatmul();
  steps.push_back(schedule::SplitStep{2, 2, {16}, true});      // k -> k.0 k.1
  steps.push_back(schedule::CacheReadStep{0, "shared", {2}});  // A.shared is stage 1, C is 3
  steps.push_back(schedule::ComputeAtStep{1, 3, 2});           // at C's k.0
  steps.push_back(schedule::FuseStep{1, {0, 1}});
  steps.push_back(schedule::AnnotationStep{1, 0, IterAnnotation::kThreadX});
  absl::StatusOr<CudaModule> k = Emit(Replay("matmul:M=64,N=64,K=32", steps));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->kernels[0].shared_bytes, 8 * 16 * 4);
  EXPECT_EQ(k->kernels[0].block[0], 128);
  EXPECT_THAT(k->source, ::testing::Not(HasSubstr("< 128)")));  // every thread fetches
  ExpectCompiles(*k);
}

TEST(CudaSourceTest, APaddedConvolutionCompiles) {
  // conv2d stage 3 (n k oh ow rc ry rx), padding inlined; k and oh on blocks,
  // ow on threads.
  std::vector<schedule::Step> steps = {
      schedule::ComputeInlineStep{1},
      schedule::FuseStep{3, {0, 1, 2}},  // n@k@oh ow rc ry rx
      schedule::AnnotationStep{3, 0, IterAnnotation::kBlockX},
      schedule::AnnotationStep{3, 1, IterAnnotation::kThreadX},
  };
  absl::StatusOr<CudaModule> k = Emit(Replay("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1", steps));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->kernels[0].grid[0], 32 * 14);
  EXPECT_EQ(k->kernels[0].block[0], 14);
  EXPECT_THAT(k->source, HasSubstr(" ? "));  // the padding reads only in bounds
  ExpectCompiles(*k);
}

TEST(CudaSourceTest, ALoopLeftParallelIsRefusedWithTheFix) {
  absl::StatusOr<CudaModule> k =
      Emit(Replay("matmul:M=64,N=64,K=32", {schedule::AnnotationStep{2, 0, IterAnnotation::kParallel}}));
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("bind it to blockIdx/threadIdx"));
}

TEST(CudaSourceTest, AStageAtRootIsAKernelOfItsOwnAndMustBeBound) {
  // The padding computed at root is a kernel of its own, writing a global
  // temporary the convolution's kernel reads: refused while no loop of it is
  // bound (one thread would pad the whole input), then two kernels.
  std::vector<schedule::Step> steps = {schedule::FuseStep{3, {0, 1, 2}},
                                       schedule::AnnotationStep{3, 0, IterAnnotation::kBlockX}};
  absl::StatusOr<CudaModule> k = Emit(Replay("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1", steps));
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("'pad'"));
  EXPECT_THAT(k.status().message(), HasSubstr("bind its loops"));
  steps.push_back(schedule::FuseStep{1, {0, 1, 2}});
  steps.push_back(schedule::AnnotationStep{1, 0, IterAnnotation::kBlockX});
  steps.push_back(schedule::AnnotationStep{1, 1, IterAnnotation::kThreadX});
  k = Emit(Replay("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1", steps));
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->kernels.size(), 2u);
  ASSERT_EQ(k->temporaries.size(), 1u);
  EXPECT_EQ(k->temporaries[0].bytes(), 16 * 16 * 16 * 4);
  EXPECT_EQ(k->kernels[0].grid[0], 16 * 16);  // n@c@h
  EXPECT_EQ(k->kernels[0].block[0], 16);      // w
  ExpectCompiles(*k);
}

TEST(CudaSourceTest, LaunchLimitsNameTheLimitAndTheValue) {
  // 2048 threads per block: i.1 x j.1 = 32 x 64.
  std::vector<schedule::Step> steps = {schedule::SplitStep{2, 0, {32}, true}, schedule::SplitStep{2, 2, {64}, true},
                                       schedule::ReorderStep{2, {0, 2, 1, 3, 4}}, schedule::FuseStep{2, {0, 1}},
                                       schedule::FuseStep{2, {1, 2}},
                                       schedule::AnnotationStep{2, 0, IterAnnotation::kBlockX},
                                       schedule::AnnotationStep{2, 1, IterAnnotation::kThreadX}};
  absl::StatusOr<CudaModule> k = Emit(Replay("matmul:M=64,N=128,K=32", steps));
  ASSERT_TRUE(k.ok()) << k.status();
  absl::Status limits = CheckLaunchLimits(*k, GpuLimits{});
  EXPECT_THAT(limits.message(), HasSubstr("2048 threads per block"));
  EXPECT_THAT(limits.message(), HasSubstr("allows 1024"));

  CudaKernel shared = k->kernels[0];
  shared.block = {256, 1, 1};
  shared.shared_bytes = 64 * 1024;
  EXPECT_THAT(CheckLaunchLimits(shared, GpuLimits{}).message(), HasSubstr("65536 bytes of shared memory"));
  CudaKernel registers = shared;
  registers.shared_bytes = 0;
  registers.local_bytes = 4 * 1024;
  EXPECT_THAT(CheckLaunchLimits(registers, GpuLimits{}).message(), HasSubstr("registers"));
}

TEST(GpuTargetTest, SpecsNameAComputeCapability) {
  EXPECT_TRUE(GpuTarget::IsGpuSpec("cuda"));
  EXPECT_TRUE(GpuTarget::IsGpuSpec("cuda:sm_90"));
  EXPECT_FALSE(GpuTarget::IsGpuSpec("host"));
  absl::StatusOr<GpuTarget> plain = GpuTarget::Parse("cuda");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->arch(), "sm_80");
  absl::StatusOr<GpuTarget> h100 = GpuTarget::Parse("cuda:sm_90");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->device_key(), "cuda-sm90");
  h100->name = "h100";
  EXPECT_EQ(h100->device_key(), "cuda-sm90-h100");
  EXPECT_EQ(h100->ToString(), "cuda:sm_90");
  for (const char* bad : {"cuda:90", "cuda:sm_", "cuda:sm_35", "cuda:sm_9x"}) {
    absl::StatusOr<GpuTarget> t = GpuTarget::Parse(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(t.status().message(), HasSubstr("e.g. cuda:sm_80")) << bad;
  }
}

TEST(GpuProbeTest, ModelNamesBecomeKeyParts) {
  EXPECT_EQ(GpuModelKeyPart("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(GpuModelKeyPart("NVIDIA H200"), "h200");
  EXPECT_EQ(GpuModelKeyPart("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(GpuModelKeyPart("NVIDIA GeForce RTX 4090"), "rtx4090");
  EXPECT_EQ(GpuModelKeyPart("Tesla V100-PCIE-16GB"), "v100");
  EXPECT_EQ(GpuModelKeyPart("NVIDIA"), "");
}

// Here (no driver) the probe says why there is no GPU; on a GPU machine it
// reads each GPU off the driver.
TEST(GpuProbeTest, ProbeReadsTheDriverOrSaysWhyThereIsNoGpu) {
  absl::StatusOr<std::vector<GpuTarget>> gpus = ProbeGpus();
  if (!gpus.ok()) {
    EXPECT_THAT(gpus.status().message(), ::testing::AnyOf(HasSubstr("NVIDIA driver"), HasSubstr("no GPU")));
    return;
  }
  ASSERT_FALSE(gpus->empty());
  for (const GpuTarget& g : *gpus) {
    EXPECT_GE(g.sm, 70);
    EXPECT_GT(g.num_sms, 0);
    EXPECT_GT(g.memory_bytes, 0);
    EXPECT_GE(g.limits.max_threads_per_block, 256);
    EXPECT_THAT(g.device_key(), HasSubstr("cuda-sm"));
  }
}

TEST(CudaSourceTest, NvrtcErrorsCarryItsLog) {
  if (!CudaCompilerAvailable()) GTEST_SKIP() << "built without the CUDA toolkit";
  absl::StatusOr<PtxModule> bad = CompileCudaToPtx("extern \"C\" __global__ void f() { undefined_call(); }", "sm_90");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("undefined_call"));
  absl::StatusOr<PtxModule> arch = CompileCudaToPtx("extern \"C\" __global__ void f() {}", "sm_1");
  ASSERT_FALSE(arch.ok());
  EXPECT_THAT(arch.status().message(), HasSubstr("sm_1"));
}

}  // namespace
}  // namespace tuneforge::codegen
