// Measuring GPU programs: a GPU target builds PTX with its launches (NVRTC,
// no GPU needed), the runner runs it with the driver API and events. Tests
// marked "on a GPU" skip where the driver finds none (CI); they ran on an
// H100/H200 through bench/gpu/run_gpu_checks.sh.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/codegen/cuda/cuda_driver.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "common/codegen/target.h"
#include "common/te/workload.h"
#include "measure/builder.h"
#include "measure/measure_proto.h"
#include "measure/measurer.h"
#include "search/annotation/annotation.h"
#include "search/sketch_generation.h"

namespace tuneforge::search {
namespace {

using ::testing::HasSubstr;

te::ComputeDagPtr Dag(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  return w.ok() ? w->dag : nullptr;
}

codegen::Target GpuTarget(int sm = 90) {
  absl::StatusOr<codegen::Target> t = codegen::Target::Parse("cuda:sm_" + std::to_string(sm));
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// `n` programs of the workload's first GPU sketch, annotated at random.
std::vector<std::vector<schedule::Step>> SampledGpuPrograms(const te::ComputeDagPtr& dag, int n, uint64_t seed) {
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateGpuSketches(dag, GpuHardwareParams());
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  std::vector<std::vector<schedule::Step>> out;
  if (!sketches.ok() || sketches->empty()) return out;
  Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    const Sketch& sketch = (*sketches)[i % sketches->size()];
    absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, GpuHardwareParams(), rng);
    EXPECT_TRUE(s.ok()) << s.status();
    if (s.ok()) out.push_back(s->steps());
  }
  return out;
}

bool HaveGpu() { return codegen::cuda::LoadDriver().ok(); }

// The measurer of a GPU worker: GPU 0 of this machine.
std::unique_ptr<measure::Measurer> GpuMeasurer() {
  codegen::Target target = GpuTarget();
  target.is_host = true;
  measure::MeasureOptions options;
  options.min_repeat_ms = 20;
  options.timeout_s = 60;
  absl::StatusOr<std::unique_ptr<measure::Measurer>> m = measure::Measurer::Create(target, options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(GpuTargetTest, CudaParsesAsAGpuTargetThatPrintsBack) {
  codegen::Target t = GpuTarget(80);
  ASSERT_TRUE(t.gpu.has_value());
  EXPECT_EQ(t.gpu->sm, 80);
  EXPECT_EQ(t.triple, codegen::kCudaTriple);
  EXPECT_EQ(t.ToString(), "cuda:sm_80");
  EXPECT_EQ(t.device_key(), "cuda-sm80");
  EXPECT_FALSE(t.is_host);
  absl::StatusOr<codegen::Target> bad = codegen::Target::Parse("cuda:sm_5");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("compute capability"));
}

TEST(GpuBuildTest, ACandidateAndTheNaiveReferenceBuildToPtxWithTheirLaunches) {
  if (!codegen::CudaCompilerAvailable()) GTEST_SKIP() << "this build has no CUDA toolkit";
  te::ComputeDagPtr dag = Dag("matmul:M=256,N=256,K=256");
  std::vector<std::vector<schedule::Step>> programs = SampledGpuPrograms(dag, 2, 3);
  ASSERT_EQ(programs.size(), 2u);
  for (const std::vector<schedule::Step>& steps : programs) {
    measure::BuiltKernel k = measure::BuildSchedule(dag, steps, GpuTarget());
    ASSERT_TRUE(k.ok()) << k.error;
    EXPECT_TRUE(k.object.is_gpu());
    EXPECT_EQ(k.object.triple, codegen::kCudaTriple);
    EXPECT_THAT(k.object.object, HasSubstr(".entry " + k.object.cuda_kernels[0].name));
    EXPECT_THAT(k.object.object, HasSubstr(".target sm_90"));
    EXPECT_GT(k.object.cuda_kernels[0].shared_bytes, 0);  // the shared-memory fetches
    ASSERT_EQ(k.args.size(), 3u);
  }
  measure::BuiltKernel reference = measure::BuildReference(dag, GpuTarget());
  ASSERT_TRUE(reference.ok()) << reference.error;
  ASSERT_EQ(reference.object.cuda_kernels.size(), 1u);
  // 65536 outputs in blocks of 256 threads.
  EXPECT_EQ(reference.object.cuda_kernels[0].grid[0], 256);
  EXPECT_EQ(reference.object.cuda_kernels[0].block[0], 256);
}

TEST(GpuBuildTest, ABuiltGpuProgramCrossesTheWireWithItsKernelsAndTemporaries) {
  if (!codegen::CudaCompilerAvailable()) GTEST_SKIP() << "this build has no CUDA toolkit";
  te::ComputeDagPtr dag = Dag("softmax:M=64,N=1000");
  measure::BuiltKernel k = measure::BuildReference(dag, GpuTarget());
  ASSERT_TRUE(k.ok()) << k.error;
  ASSERT_GT(k.object.cuda_kernels.size(), 1u);  // max, exp, sum, divide
  ASSERT_FALSE(k.object.cuda_temporaries.empty());
  codegen::CompiledObject back = measure::KernelObjectFromProto(measure::KernelObjectToProto(k.object));
  ASSERT_EQ(back.cuda_kernels.size(), k.object.cuda_kernels.size());
  for (size_t i = 0; i < back.cuda_kernels.size(); ++i) {
    EXPECT_EQ(back.cuda_kernels[i].name, k.object.cuda_kernels[i].name);
    EXPECT_EQ(back.cuda_kernels[i].grid, k.object.cuda_kernels[i].grid);
    EXPECT_EQ(back.cuda_kernels[i].block, k.object.cuda_kernels[i].block);
  }
  ASSERT_EQ(back.cuda_temporaries.size(), k.object.cuda_temporaries.size());
  EXPECT_EQ(back.cuda_temporaries[0].bytes(), k.object.cuda_temporaries[0].bytes());
  EXPECT_EQ(back.object, k.object.object);
}

TEST(GpuBuildTest, AHandWrittenScheduleOverTheThreadLimitIsACompileErrorNamingIt) {
  if (!codegen::CudaCompilerAvailable()) GTEST_SKIP() << "this build has no CUDA toolkit";
  te::ComputeDagPtr dag = Dag("matmul:M=64,N=64,K=64");
  // 4096 threads in one block: i and j fused, bound whole to threadIdx.x.
  std::vector<schedule::Step> steps = {schedule::FuseStep{2, {0, 1}},
                                       schedule::SplitStep{2, 0, {4096}, true},
                                       schedule::AnnotationStep{2, 0, schedule::IterAnnotation::kBlockX},
                                       schedule::AnnotationStep{2, 1, schedule::IterAnnotation::kThreadX}};
  measure::BuiltKernel k = measure::BuildSchedule(dag, steps, GpuTarget());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error_kind, measure::MeasureErrorKind::kCompileError);
  EXPECT_THAT(k.error, HasSubstr("threads"));
}

TEST(GpuMeasureTest, WithoutAGpuTheRunnerSaysWhyAndMeasuresNothing) {
  if (!codegen::CudaCompilerAvailable()) GTEST_SKIP() << "this build has no CUDA toolkit";
  if (HaveGpu()) GTEST_SKIP() << "this machine has a GPU";
  std::unique_ptr<measure::Measurer> m = GpuMeasurer();
  ASSERT_NE(m, nullptr);
  te::ComputeDagPtr dag = Dag("matmul:M=64,N=64,K=64");
  std::vector<measure::MeasureResult> r = m->Measure(dag, SampledGpuPrograms(dag, 1, 1));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error_kind, measure::MeasureErrorKind::kRunnerError);
  EXPECT_THAT(r[0].error, HasSubstr("no NVIDIA driver"));
  EXPECT_EQ(r[0].median_seconds, 0);
}

// On a GPU: sampled programs of several ops run, match the CPU reference
// (the unscheduled program compiled by LLVM) and are timed.
TEST(GpuMeasureTest, OnAGpuSampledProgramsMatchTheCpuReferenceAndAreTimed) {
  if (!codegen::CudaCompilerAvailable() || !HaveGpu()) GTEST_SKIP() << "no GPU here";
  std::unique_ptr<measure::Measurer> m = GpuMeasurer();
  ASSERT_NE(m, nullptr);
  for (const std::string spec : {"matmul:M=512,N=512,K=512", "conv2d:N=1,C=64,H=28,W=28,K=64,R=3,S=3,pad=1",
                                 "softmax:M=64,N=1000", "depthwise_conv2d:N=1,C=64,H=28,W=28,R=3,S=3,stride=2,pad=1"}) {
    SCOPED_TRACE(spec);
    te::ComputeDagPtr dag = Dag(spec);
    measure::BuiltKernel cpu_reference = measure::BuildReference(dag, codegen::Target::Host());
    ASSERT_TRUE(cpu_reference.ok()) << cpu_reference.error;
    std::vector<measure::BuiltKernel> candidates;
    for (const std::vector<schedule::Step>& steps : SampledGpuPrograms(dag, 4, 11))
      candidates.push_back(measure::BuildSchedule(dag, steps, GpuTarget()));
    std::vector<measure::MeasureResult> r = m->MeasureBuilt(*dag, cpu_reference, candidates);
    for (const measure::MeasureResult& x : r) {
      EXPECT_TRUE(x.ok()) << x.error;
      EXPECT_TRUE(x.correct);
      EXPECT_GT(x.median_seconds, 0);
      EXPECT_LT(x.median_seconds, 0.1);
    }
  }
}

// On a GPU: the naive GPU program (the reference a GPU worker checks
// against) matches the CPU reference, and a tuned candidate checks against it.
TEST(GpuMeasureTest, OnAGpuTheNaiveGpuReferenceChecksCandidates) {
  if (!codegen::CudaCompilerAvailable() || !HaveGpu()) GTEST_SKIP() << "no GPU here";
  std::unique_ptr<measure::Measurer> m = GpuMeasurer();
  ASSERT_NE(m, nullptr);
  te::ComputeDagPtr dag = Dag("matmul:M=256,N=384,K=128");
  measure::BuiltKernel naive_gpu = measure::BuildReference(dag, GpuTarget());
  ASSERT_TRUE(naive_gpu.ok()) << naive_gpu.error;
  measure::BuiltKernel cpu_reference = measure::BuildReference(dag, codegen::Target::Host());
  std::vector<measure::MeasureResult> naive = m->MeasureBuilt(*dag, cpu_reference, {naive_gpu});
  ASSERT_EQ(naive.size(), 1u);
  EXPECT_TRUE(naive[0].correct) << naive[0].error;
  std::vector<measure::MeasureResult> r = m->Measure(dag, SampledGpuPrograms(dag, 3, 5));
  for (const measure::MeasureResult& x : r) EXPECT_TRUE(x.correct) << x.error;
}

// On a GPU: a kernel that faults costs its candidate (runtime_crash); the
// runner is replaced and the next candidate is measured.
TEST(GpuMeasureTest, OnAGpuAFaultingKernelCostsOneCandidate) {
  if (!codegen::CudaCompilerAvailable() || !HaveGpu()) GTEST_SKIP() << "no GPU here";
  std::unique_ptr<measure::Measurer> m = GpuMeasurer();
  ASSERT_NE(m, nullptr);
  te::ComputeDagPtr dag = Dag("matmul:M=64,N=64,K=64");
  absl::StatusOr<codegen::PtxModule> ptx = codegen::CompileCudaToPtx(
      "extern \"C\" __global__ void wild(float* a, float* b, float* c) { c[1ull << 40] = a[0]; }", "sm_90");
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  measure::BuiltKernel good = measure::BuildSchedule(dag, SampledGpuPrograms(dag, 1, 2)[0], GpuTarget());
  ASSERT_TRUE(good.ok()) << good.error;
  measure::BuiltKernel wild = good;
  wild.object.object = ptx->ptx;
  wild.object.cuda_kernels = {codegen::CudaKernel{"wild", {1, 1, 1}, {1, 1, 1}, 0, 0}};
  measure::BuiltKernel reference = measure::BuildReference(dag, GpuTarget());
  std::vector<measure::MeasureResult> r = m->MeasureBuilt(*dag, reference, {wild, good});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].error_kind, measure::MeasureErrorKind::kRuntimeCrash) << r[0].error;
  EXPECT_THAT(r[0].error, HasSubstr("CUDA_ERROR"));
  EXPECT_TRUE(r[1].correct) << r[1].error;
}

}  // namespace
}  // namespace tuneforge::search
