// The whole chain on real workloads: op library -> steps -> lowering ->
// LLVM -> runner, checked against the reference; and the reference itself
// (the compiled unscheduled program) checked against the interpreter.
#include <cstdio>

#include "common/codegen/compiler.h"
#include "common/codegen/packed_constants.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/te/interpreter.h"
#include "common/te/workload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "measure/build_service.h"
#include "measure/builder.h"
#include "measure/measure_proto.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

using schedule::AnnotationStep;
using schedule::IterAnnotation;
using schedule::ReorderStep;
using schedule::SplitStep;
using schedule::Step;
using ::testing::HasSubstr;

te::ComputeDagPtr Workload(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << spec << ": " << w.status();
  return w.ok() ? w->dag : nullptr;
}

// Ansor-style tiling of C[i, j] += A[i, k] * B[k, j]: split i, j, k; order
// i.0 j.0 k.0 i.1 k.1 j.1; outer loop parallel, inner j vectorized.
std::vector<Step> TiledMatmul(int stage) {
  return {
      SplitStep{stage, 0, {8}, true},   // i -> i.0 i.1 | j k
      SplitStep{stage, 2, {16}, true},  // j -> j.0 j.1
      SplitStep{stage, 4, {4}, true},   // k -> k.0 k.1
      ReorderStep{stage, {0, 2, 4, 1, 5, 3}},
      AnnotationStep{stage, 0, IterAnnotation::kParallel},
      AnnotationStep{stage, 5, IterAnnotation::kVectorize},
  };
}

std::unique_ptr<Measurer> MakeTimingMeasurer() {
  MeasureOptions options;
  options.min_repeat_ms = 20;
  auto m = Measurer::Create(codegen::Target::Host(), options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(EndToEndTest, TiledParallelVectorizedMatmulIsCorrectAndTimed) {
  te::ComputeDagPtr dag = Workload("matmul:M=128,N=128,K=128");
  ASSERT_NE(dag, nullptr);
  const int stage = dag->OutputOps()[0];
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  std::vector<MeasureResult> r = m->Measure(dag, {{}, TiledMatmul(stage)});
  ASSERT_EQ(r.size(), 2u);
  for (const MeasureResult& x : r) {
    EXPECT_EQ(x.error_kind, MeasureErrorKind::kNone) << x.error;
    EXPECT_TRUE(x.correct);
    EXPECT_GT(x.median_seconds, 0);
    EXPECT_GT(x.compile_ms, 0);
    EXPECT_LT(x.max_rel_error, 1e-3);
  }
  std::printf("[ matmul 128 ] naive %.3f ms (%.2f GFLOPS), tiled %.3f ms (%.2f GFLOPS)\n",
              r[0].median_seconds * 1e3, dag->flops() / r[0].median_seconds * 1e-9,
              r[1].median_seconds * 1e3, dag->flops() / r[1].median_seconds * 1e-9);
}

// One schedule compiled, run and checked against the reference.
void ExpectBuiltAndCorrect(Measurer& m, const te::ComputeDagPtr& dag, const std::vector<Step>& steps) {
  std::vector<MeasureResult> r = m.Measure(dag, {steps});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error_kind, MeasureErrorKind::kNone) << r[0].error;
  EXPECT_TRUE(r[0].correct);
  EXPECT_LT(r[0].max_rel_error, 1e-3);
}

// Register tiles whose width is not a power of two (8 rows of 40 and of 36
// lanes): their vectors are cut into whole registers of the host and the
// lanes left over (lower/passes/vectorize.h: 32 + 8 and 32 + 4), compiled by
// LLVM and checked against the reference.
TEST(EndToEndTest, ATileWhoseWidthIsNotAPowerOfTwoIsCorrect) {
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  for (const char* spec : {"matmul:M=64,N=40,K=64", "matmul:M=64,N=36,K=64"}) {
    SCOPED_TRACE(spec);
    te::ComputeDagPtr dag = Workload(spec);
    ASSERT_NE(dag, nullptr);
    const int stage = dag->OutputOps()[0];
    std::vector<Step> steps = {
        SplitStep{stage, 0, {8}, true},      // i -> i.0 i.1 | j k
        ReorderStep{stage, {0, 3, 1, 2}},    // i.0 k i.1 j
        AnnotationStep{stage, 3, IterAnnotation::kVectorize},
    };
    ExpectBuiltAndCorrect(*m, dag, steps);
  }
}

// A 16-lane tile over a 40-wide axis: two whole tiles as vectors, the last
// (8 lanes) tested lane by lane (lower/passes/vectorize.cc,
// VersionedAtTheEdge), compiled by LLVM and checked against the reference.
TEST(EndToEndTest, AVectorTileThatOverrunsItsAxisIsCorrect) {
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  te::ComputeDagPtr dag = Workload("matmul:M=64,N=40,K=64");
  ASSERT_NE(dag, nullptr);
  const int stage = dag->OutputOps()[0];
  std::vector<Step> steps = {
      SplitStep{stage, 0, {8}, true},       // i -> i.0 i.1 | j k
      SplitStep{stage, 2, {16}, true},      // j -> j.0 j.1 (3 x 16 over 40)
      ReorderStep{stage, {0, 2, 4, 1, 3}},  // i.0 j.0 k i.1 j.1
      AnnotationStep{stage, 4, IterAnnotation::kVectorize},
  };
  ExpectBuiltAndCorrect(*m, dag, steps);
}

// Local accumulator tiles whose last tile runs past the end of C (a
// constant B packed in whole tiles: lower/passes/build_loop_nest.cc,
// CanOverrunTheEnd): a 6 x 16 tile over 64 x 40 (rows past the end stay
// tested, A is read along them; columns do not), and a 3 x 24 tile computed
// for whole rows, its 40 columns padded to two tiles of 24
// (schedule/bound.cc, PadToWholeTiles). Compiled by LLVM for the host and
// checked against the reference.
TEST(EndToEndTest, LocalTilesComputedPastTheEndAreCorrect) {
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  te::ComputeDagPtr dag = Workload("matmul:M=64,N=40,K=64");
  ASSERT_NE(dag, nullptr);
  // A 0, B 1, B.local 2, C.local 3, C 4; C.local's i j k split, then
  // ordered i.0 j.0 k.0 k.1 i.1 j.1.
  auto tiled = [](int64_t rows, int64_t columns, int attach_at) {
    return std::vector<Step>{
        schedule::CacheWriteStep{2, "local"},
        schedule::CacheReadStep{1, "local", {2}},
        SplitStep{3, 2, {8}, true},
        SplitStep{3, 1, {columns}, true},
        SplitStep{3, 0, {rows}, true},
        ReorderStep{3, {0, 2, 4, 5, 1, 3}},
        schedule::FollowSplitStep{4, 1, 3, 1},
        schedule::FollowSplitStep{4, 0, 4, 1},
        ReorderStep{4, {0, 2, 1, 3}},
        schedule::ComputeAtStep{3, 4, attach_at},  // 1: at C's j.0 (a tile), 0: at its i.0 (whole rows)
        schedule::ComputeAtStep{2, 3, 2},
        AnnotationStep{3, 5, IterAnnotation::kVectorize},
    };
  };
  for (const auto& [steps, name] : {std::pair{tiled(6, 16, 1), "6 x 16 tiles"}, {tiled(3, 24, 0), "3 x 24, rows"}}) {
    SCOPED_TRACE(name);
    ExpectBuiltAndCorrect(*m, dag, steps);
  }
}

// A runner-only worker's path: a builder links the candidate into a shared
// object (BuildRequest.shared_object), and the runner loads it with dlopen;
// its parallel loops call the runner's exported thread pool.
TEST(EndToEndTest, ASharedObjectFromTheBuilderIsCheckedAndTimedInTheRunner) {
  te::ComputeDagPtr dag = Workload("matmul:M=128,N=128,K=128");
  ASSERT_NE(dag, nullptr);
  runner::BuildRequest request = MakeBuildRequest(WorkloadSource::Spec("matmul:M=128,N=128,K=128"), dag->workload_key(),
                                                  TiledMatmul(dag->OutputOps()[0]), codegen::Target::Host());
  request.set_shared_object(true);
  runner::BuildReply reply = ServeBuild(request);
  ASSERT_EQ(reply.error_kind(), ErrorKindToProto(MeasureErrorKind::kNone)) << reply.error();
  BuiltKernel shared;
  shared.object = KernelObjectFromProto(reply.object());
  ASSERT_TRUE(shared.object.shared);
  EXPECT_EQ(shared.object.object.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(static_cast<unsigned char>(shared.object.object[16]), 3);  // ET_DYN
  absl::StatusOr<std::vector<ArgSpec>> args = ArgSpecsFromProto(reply.args());
  ASSERT_TRUE(args.ok()) << args.status();
  shared.args = *args;
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  std::vector<MeasureResult> r = m->MeasureBuilt(*dag, BuildReference(dag, codegen::Target::Host()), {shared});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error_kind, MeasureErrorKind::kNone) << r[0].error;
  EXPECT_TRUE(r[0].correct);
  EXPECT_GT(r[0].median_seconds, 0);
}

TEST(EndToEndTest, BadSchedulesFailAloneInABatch) {
  te::ComputeDagPtr dag = Workload("matmul:M=32,N=32,K=32");
  ASSERT_NE(dag, nullptr);
  const int stage = dag->OutputOps()[0];
  std::vector<std::vector<Step>> candidates;
  for (int i = 0; i < 6; ++i) candidates.push_back(TiledMatmul(stage));
  candidates[2] = {SplitStep{stage, 7, {4}, true}};  // no iterator 7
  auto m = MakeTimingMeasurer();
  ASSERT_NE(m, nullptr);
  std::vector<MeasureResult> r = m->Measure(dag, candidates);
  ASSERT_EQ(r.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    if (i == 2) {
      EXPECT_EQ(r[i].error_kind, MeasureErrorKind::kInvalidSchedule);
      EXPECT_THAT(r[i].error, HasSubstr("split"));
      EXPECT_FALSE(r[i].correct);
    } else {
      EXPECT_EQ(r[i].error_kind, MeasureErrorKind::kNone) << i << ": " << r[i].error;
      EXPECT_TRUE(r[i].correct);
    }
  }
  // The one-candidate convenience gives the same answer.
  MeasureResult one = m->MeasureOne(dag, TiledMatmul(stage));
  EXPECT_TRUE(one.ok()) << one.error;
}

// Loops too long to unroll stay loops (LLVM is not asked to unroll them
// either): a huge auto-unroll pragma builds quickly and correctly.
TEST(EndToEndTest, AHugeAutoUnrollPragmaStillBuildsQuickly) {
  te::ComputeDagPtr dag = Workload("matmul:M=256,N=256,K=4");
  ASSERT_NE(dag, nullptr);
  const int stage = dag->OutputOps()[0];
  BuiltKernel k = BuildSchedule(dag, {schedule::PragmaStep{stage, 0, 1 << 20}}, codegen::Target::Host());
  EXPECT_TRUE(k.ok()) << k.error;
  EXPECT_LT(k.build_ms, 5000);
}

// Four stages each unrolled to ~4000 statements (16000 in all): refused before LLVM
// (which would compile it for minutes), as that candidate's lower_error.
TEST(EndToEndTest, AProgramUnrolledPastTheLimitIsALowerError) {
  te::ComputeDagPtr dag = Workload("softmax:M=62,N=64");
  ASSERT_NE(dag, nullptr);
  std::vector<Step> steps;
  for (int stage = 1; stage <= 4; ++stage) steps.push_back(schedule::PragmaStep{stage, 0, 4096});
  BuiltKernel k = BuildSchedule(dag, steps, codegen::Target::Host());
  EXPECT_EQ(k.error_kind, MeasureErrorKind::kLowerError);
  EXPECT_THAT(k.error, HasSubstr("statements (limit 8192)"));
  EXPECT_THAT(k.error, HasSubstr("auto_unroll_max_step"));
}

// Measurement overhead on a real kernel: everything but the timed runs
// (object load, the check run, comparing 256K outputs, the pipe round trip).
// Printed for the record (target <= 100 ms per candidate), not asserted.
TEST(EndToEndTest, OverheadPerCandidateOnMatmul512IsPrinted) {
  te::ComputeDagPtr dag = Workload("matmul:M=512,N=512,K=512");
  ASSERT_NE(dag, nullptr);
  MeasureOptions options;
  options.min_repeat_ms = 0;
  options.repeat = 3;
  auto m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<std::vector<Step>> candidates(6, TiledMatmul(dag->OutputOps()[0]));
  std::vector<MeasureResult> r = (*m)->Measure(dag, candidates);
  double worst = 0, sum = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_TRUE(r[i].ok()) << r[i].error;
    if (i == 0) continue;  // includes the runner start and the naive reference
    double overhead = r[i].run_wall_ms - r[i].timed_ms;
    worst = std::max(worst, overhead);
    sum += overhead;
  }
  std::printf(
      "[ overhead ] matmul 512 tiled: kernel %.3f ms; first candidate %.1f ms (runner "
      "start + reference); after that overhead mean %.2f ms, max %.2f ms; build %.1f ms\n",
      r[1].median_seconds * 1e3, r[0].run_wall_ms, sum / (r.size() - 1), worst, r[1].compile_ms);
  EXPECT_LT(worst, 1000);  // sanity only
}

// The compiled unscheduled program (what every candidate is checked
// against) agrees with the interpreter, an implementation that shares
// nothing with lowering or code generation.
class ReferenceAgreesWithInterpreter : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceAgreesWithInterpreter, OnSmallShapes) {
  te::ComputeDagPtr dag = Workload(GetParam());
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(schedule::State(dag));
  ASSERT_TRUE(func.ok()) << func.status();
  absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> kernel = codegen::JitCompile(*func);
  ASSERT_TRUE(kernel.ok()) << kernel.status();

  std::vector<te::NDArray> inputs, outputs;
  std::vector<void*> args;
  const std::vector<int> input_ops = dag->InputOps();
  for (size_t i = 0; i < input_ops.size(); ++i) {
    const te::Tensor& op = dag->op(input_ops[i]);
    auto a = te::NDArray::Empty(op->dtype, op->shape);
    ASSERT_TRUE(a.ok());
    a->FillRandom(kInputSeed + i);
    inputs.push_back(*std::move(a));
  }
  for (int o : dag->OutputOps()) {
    auto a = te::NDArray::Empty(dag->op(o)->dtype, dag->op(o)->shape);
    ASSERT_TRUE(a.ok());
    outputs.push_back(*std::move(a));
  }
  for (te::NDArray& a : inputs) args.push_back(a.data());
  for (te::NDArray& a : outputs) args.push_back(a.data());
  absl::StatusOr<codegen::PackedConstants> packed =
      codegen::PackedConstants::Prepare(**kernel, codegen::PackedArgsOf(*func), args);
  ASSERT_TRUE(packed.ok()) << packed.status();
  args = packed->Append(std::move(args));
  ASSERT_EQ((**kernel)(args.data()), 0);

  absl::StatusOr<std::vector<te::NDArray>> expected = te::Interpret(*dag, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_EQ(expected->size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto c = te::Compare(outputs[i], (*expected)[i]);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(c->ok) << GetParam() << " output " << i << ": " << c->Summary();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, ReferenceAgreesWithInterpreter,
    ::testing::Values("matmul:M=5,N=7,K=3", "matmul:M=4,N=4,K=6,dtype=int32",
                      "batch_matmul:B=2,M=3,N=4,K=5", "dense:M=3,N=4,K=5",
                      "conv1d:N=1,C=2,W=9,K=3,S=3,pad=1,dilation=2",
                      "conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1",
                      "conv2d:N=1,C=4,H=7,W=7,K=4,R=3,S=3,stride=2,pad=1,groups=2",
                      "conv3d:N=1,C=2,D=4,H=4,W=4,K=2,T=3,R=3,S=3,pad=1",
                      "depthwise_conv2d:N=1,C=3,H=6,W=6,R=3,S=3,pad=1",
                      "conv2d_transpose:N=1,C=2,H=4,W=4,K=3,R=3,S=3,stride=2,pad=1",
                      "capsule_conv2d:N=1,H=4,W=4,C=2,K=2,R=3,S=3,capsule=2,pad=1",
                      "conv2d_winograd:N=1,C=2,H=6,W=6,K=2,tile=4",
                      "max_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2",
                      "avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,pad=1", "softmax:M=3,N=7", "norm:M=4,N=5",
                      "layer_norm:M=3,N=8", "relu:N=1,C=2,H=3,W=4", "add:M=3,N=4",
                      "conv2d+bias+relu:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name;
      for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

}  // namespace
}  // namespace tuneforge::measure
