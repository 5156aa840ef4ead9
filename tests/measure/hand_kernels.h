// Hand-written loop nests for the measurement tests: a small elementwise
// workload B[i] = A[i] * 2 + 1 and kernels for it that are right, wrong,
// crash, hang or run out of memory. Built directly as LoweredFuncs so the
// runner's behaviour is tested independently of lowering.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/codegen/target.h"
#include "common/lower/stmt.h"
#include "common/te/compute_dag.h"
#include "common/te/tensor.h"
#include "gtest/gtest.h"
#include "measure/builder.h"

namespace tuneforge::measure::testing {

inline te::Buffer MakeBuffer(std::string name, std::vector<int64_t> shape,
                             te::DType dtype = te::DType::Float32()) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  return b;
}

class ElementwiseWorkload {
 public:
  static constexpr int64_t kN = 64;

  ElementwiseWorkload() {
    te::Tensor a = te::Placeholder("A", {kN});
    absl::StatusOr<te::Tensor> b = te::Compute("B", {kN}, [&](const std::vector<te::Var>& v) {
      return te::Read(a, {v[0]}) * te::Expr(2.0f) + te::Expr(1.0f);
    });
    EXPECT_TRUE(b.ok()) << b.status();
    absl::StatusOr<te::ComputeDag> dag = te::ComputeDag::Create({*b});
    EXPECT_TRUE(dag.ok()) << dag.status();
    dag_ = std::make_shared<const te::ComputeDag>(*std::move(dag));
  }

  const te::ComputeDagPtr& dag() const { return dag_; }
  const te::Buffer& a() const { return a_; }
  const te::Buffer& b() const { return b_; }

  lower::LoweredFunc Func(lower::Stmt body, std::string name = "kernel") const {
    return lower::LoweredFunc{std::move(name), {a_, b_}, std::move(body)};
  }
  te::Expr LoadA(const te::Expr& index) const {
    return te::MakeBufferLoad(a_, {index}, te::DType::Float32());
  }
  te::Expr LoadB(const te::Expr& index) const {
    return te::MakeBufferLoad(b_, {index}, te::DType::Float32());
  }

  // B[i] = A[i] * 2 + 1 over [0, extent).
  lower::LoweredFunc Correct(int64_t extent = kN) const {
    te::Var i = te::MakeVar("i");
    return Func(
        lower::MakeFor(i, extent, lower::ForKind::kSerial,
                       lower::MakeStore(b_, {i}, LoadA(i) * te::Expr(2.0f) + te::Expr(1.0f))));
  }
  // B[i] = 0.
  lower::LoweredFunc Zeros() const {
    te::Var i = te::MakeVar("i");
    return Func(
        lower::MakeFor(i, kN, lower::ForKind::kSerial, lower::MakeStore(b_, {i}, te::Expr(0.0f))));
  }
  // Stores far outside B: the runner dies with SIGSEGV.
  lower::LoweredFunc Segfault() const {
    te::Var i = te::MakeVar("i");
    te::Expr far = te::Expr(i) + te::IntConst(int64_t{1} << 40);
    return Func(
        lower::MakeFor(i, kN, lower::ForKind::kSerial, lower::MakeStore(b_, {far}, LoadA(i))));
  }
  // An outer loop of 2^60 iterations whose body has no closed form.
  lower::LoweredFunc Endless() const {
    te::Var t = te::MakeVar("t"), i = te::MakeVar("i");
    lower::Stmt body = lower::MakeStore(b_, {i}, LoadB(i) * te::Expr(0.5f) + LoadA(i));
    return Func(lower::MakeFor(t, int64_t{1} << 60, lower::ForKind::kSerial,
                               lower::MakeFor(i, kN, lower::ForKind::kSerial, body)));
  }
  // A 256 GiB temporary: its allocation fails and the kernel returns 1.
  lower::LoweredFunc HugeAllocation() const {
    te::Buffer tmp = MakeBuffer("T", {int64_t{1} << 36});
    te::Var i = te::MakeVar("i");
    te::Expr spread = te::Expr(i) * te::IntConst(int64_t{1} << 30);
    lower::Stmt body = lower::MakeSeq(
        {lower::MakeStore(tmp, {spread}, LoadA(i)),
         lower::MakeStore(b_, {i},
                          te::MakeBufferLoad(tmp, {spread}, te::DType::Float32()) * te::Expr(2.0f) +
                              te::Expr(1.0f))});
    return Func(lower::MakeAllocate(tmp, lower::MakeFor(i, kN, lower::ForKind::kSerial, body)));
  }
  // Computes B right but zeroes its input A on the way.
  lower::LoweredFunc ClobbersInput() const {
    te::Var i = te::MakeVar("i");
    lower::Stmt body =
        lower::MakeSeq({lower::MakeStore(b_, {i}, LoadA(i) * te::Expr(2.0f) + te::Expr(1.0f)),
                        lower::MakeStore(a_, {i}, te::Expr(0.0f))});
    return Func(lower::MakeFor(i, kN, lower::ForKind::kSerial, body));
  }
  // Not compilable: a two-index access (buffers must be flattened).
  lower::LoweredFunc Uncompilable() const {
    te::Var i = te::MakeVar("i");
    return Func(lower::MakeFor(i, kN, lower::ForKind::kSerial,
                               lower::MakeStore(b_, {i, i}, te::Expr(1.0f))));
  }

  BuiltKernel Build(const lower::LoweredFunc& func) const {
    BuiltKernel k = BuildLowered(*dag_, func, codegen::Target::Host());
    EXPECT_TRUE(k.ok()) << k.error;
    return k;
  }

 private:
  te::ComputeDagPtr dag_;
  te::Buffer a_ = MakeBuffer("A", {kN});
  te::Buffer b_ = MakeBuffer("B", {kN});
};

}  // namespace tuneforge::measure::testing
