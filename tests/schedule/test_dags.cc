#include "tests/schedule/test_dags.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/te/expr.h"
#include "common/te/tensor.h"

namespace tuneforge::schedule::testing {
namespace {

using te::Expr;
using te::Read;
using te::Tensor;
using te::Var;

Tensor Must(absl::StatusOr<Tensor> t) {
  if (!t.ok()) {
    ADD_FAILURE() << "building a test op failed: " << t.status();
    std::abort();  // a broken fixture: nothing below could be meaningful
  }
  return *std::move(t);
}

te::ComputeDagPtr MakeDag(const std::vector<Tensor>& outputs) {
  absl::StatusOr<te::ComputeDag> dag = te::ComputeDag::Create(outputs);
  if (!dag.ok()) {
    ADD_FAILURE() << "building a test DAG failed: " << dag.status();
    std::abort();
  }
  return std::make_shared<const te::ComputeDag>(*std::move(dag));
}

Tensor MatmulOp(int64_t m, int64_t n, int64_t k) {
  Tensor a = te::Placeholder("A", {m, k});
  Tensor b = te::Placeholder("B", {k, n});
  te::IterVar r = te::ReduceAxis(k, "k");
  return Must(te::Compute(
      "C", {m, n},
      [&](const std::vector<Var>& v) {
        return te::Sum(Read(a, {v[0], r.var}) * Read(b, {r.var, v[1]}), {r});
      },
      "matmul"));
}

}  // namespace

te::ComputeDagPtr Matmul(int64_t m, int64_t n, int64_t k) { return MakeDag({MatmulOp(m, n, k)}); }

te::ComputeDagPtr MatmulRelu(int64_t m, int64_t n, int64_t k) {
  Tensor c = MatmulOp(m, n, k);
  Tensor d = Must(te::Compute("D", {m, n}, [&](const std::vector<Var>& v) {
    return te::Max(Read(c, {v[0], v[1]}), Expr(0.0f));
  }));
  return MakeDag({d});
}

te::ComputeDagPtr Conv2dPad() {
  Tensor data = te::Placeholder("data", {1, 3, 8, 8});
  Tensor weight = te::Placeholder("weight", {4, 3, 3, 3});
  Tensor pad = Must(te::Compute(
      "pad", {1, 3, 10, 10},
      [&](const std::vector<Var>& v) {
        Expr inside = te::LogicalAnd(te::LogicalAnd(Expr(v[2]) >= 1, Expr(v[2]) < 9),
                                     te::LogicalAnd(Expr(v[3]) >= 1, Expr(v[3]) < 9));
        return te::MakeSelect(inside, Read(data, {v[0], v[1], Expr(v[2]) - 1, Expr(v[3]) - 1}),
                              Expr(0.0f));
      },
      "pad"));
  te::IterVar rc = te::ReduceAxis(3, "rc"), ry = te::ReduceAxis(3, "ry"),
              rx = te::ReduceAxis(3, "rx");
  Tensor conv = Must(te::Compute(
      "conv", {1, 4, 8, 8},
      [&](const std::vector<Var>& v) {
        return te::Sum(Read(pad, {v[0], rc.var, Expr(v[2]) + ry.var, Expr(v[3]) + rx.var}) *
                           Read(weight, {v[1], rc.var, ry.var, rx.var}),
                       {rc, ry, rx});
      },
      "conv2d"));
  return MakeDag({conv});
}

te::ComputeDagPtr Softmax(int64_t m, int64_t n) {
  Tensor x = te::Placeholder("X", {m, n});
  te::IterVar k1 = te::ReduceAxis(n, "k");
  Tensor maxelem = Must(te::Compute("maxelem", {m}, [&](const std::vector<Var>& v) {
    return te::MaxReduce(Read(x, {v[0], k1.var}), {k1});
  }));
  Tensor exp = Must(te::Compute("exp", {m, n}, [&](const std::vector<Var>& v) {
    return te::MakeCall(te::Intrinsic::kExp, {Read(x, {v[0], v[1]}) - Read(maxelem, {v[0]})});
  }));
  te::IterVar k2 = te::ReduceAxis(n, "k");
  Tensor expsum = Must(te::Compute("expsum", {m}, [&](const std::vector<Var>& v) {
    return te::Sum(Read(exp, {v[0], k2.var}), {k2});
  }));
  Tensor out = Must(te::Compute("out", {m, n}, [&](const std::vector<Var>& v) {
    return Read(exp, {v[0], v[1]}) / Read(expsum, {v[0]});
  }));
  return MakeDag({out});
}

te::ComputeDagPtr ElementwiseChain(int64_t m, int64_t n) {
  Tensor a = te::Placeholder("A", {m, n});
  auto next = [&](const char* name, const Tensor& in, auto fn) {
    return Must(te::Compute(name, {m, n}, [&](const std::vector<Var>& v) {
      return fn(Read(in, {v[0], v[1]}));
    }));
  };
  Tensor b = next("B", a, [](Expr e) { return e + Expr(1.0f); });
  Tensor c = next("C", b, [](Expr e) { return e * Expr(2.0f); });
  Tensor d = next("D", c, [](Expr e) { return e - Expr(3.0f); });
  return MakeDag({d});
}

te::ComputeDagPtr RowReduce(int64_t m, int64_t n, te::Combiner combiner) {
  Tensor x = te::Placeholder("X", {m, n});
  te::IterVar k = te::ReduceAxis(n, "k");
  return MakeDag({Must(te::Compute("R", {m}, [&](const std::vector<Var>& v) {
    return te::MakeReduce(combiner, Read(x, {v[0], k.var}), {k});
  }))});
}

te::ComputeDagPtr TwoAxisReduce(int64_t m, int64_t n, int64_t k) {
  Tensor x = te::Placeholder("X", {m, n, k});
  te::IterVar r1 = te::ReduceAxis(n, "r1"), r2 = te::ReduceAxis(k, "r2");
  return MakeDag({Must(te::Compute("S", {m}, [&](const std::vector<Var>& v) {
    return te::Sum(Read(x, {v[0], r1.var, r2.var}), {r1, r2});
  }))});
}

te::ComputeDagPtr TwoConsumers(int64_t m, int64_t n) {
  Tensor x = te::Placeholder("X", {m, n});
  Tensor b = Must(te::Compute("B", {m, n}, [&](const std::vector<Var>& v) {
    return Read(x, {v[0], v[1]}) + Expr(1.0f);
  }));
  Tensor c = Must(te::Compute("C", {m, n}, [&](const std::vector<Var>& v) {
    return Read(x, {v[0], v[1]}) * Expr(2.0f);
  }));
  Tensor d = Must(te::Compute("D", {m, n}, [&](const std::vector<Var>& v) {
    return Read(b, {v[0], v[1]}) + Read(c, {v[0], v[1]});
  }));
  return MakeDag({d});
}

te::ComputeDagPtr DagByName(const std::string& name) {
  if (name == "matmul") return Matmul(64, 64, 64);
  if (name == "matmul_relu") return MatmulRelu(64, 64, 64);
  if (name == "conv2d_pad") return Conv2dPad();
  if (name == "softmax") return Softmax(16, 32);
  if (name == "chain") return ElementwiseChain(16, 16);
  if (name == "row_sum") return RowReduce(8, 16, te::Combiner::kSum);
  if (name == "two_axis_sum") return TwoAxisReduce(4, 6, 8);
  if (name == "two_consumers") return TwoConsumers(16, 16);
  return nullptr;
}

std::vector<Step> OneStepOfEachKind() {
  return {
      SplitStep{2, 1, {32, 4}, false},
      FollowSplitStep{3, 2, 0, 2},
      FollowFusedSplitStep{4, 1, {0, 1}, 1, false},
      ReorderStep{2, {2, 0, 1}},
      FuseStep{2, {0, 1, 2}},
      AnnotationStep{2, 3, IterAnnotation::kThreadY},
      PragmaStep{2, 1, 512},
      StorageAlignStep{5, 1, 32, 7},
      ComputeAtStep{1, 3, 2},
      ComputeRootStep{6},
      ComputeInlineStep{7},
      CacheReadStep{0, "shared", {2, 3}},
      CacheWriteStep{8, "local"},
      RfactorStep{2, 4, 1},
  };
}

State ReplayOrFail(const te::ComputeDagPtr& dag, const std::vector<Step>& steps) {
  absl::StatusOr<State> state = State::Replay(dag, steps);
  if (!state.ok()) {
    ADD_FAILURE() << "replay failed: " << state.status();
    return State(dag);
  }
  return *std::move(state);
}

std::vector<std::string> IterSummary(const Stage& stage) {
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
    const IterNode& node = stage.iter_node(i);
    std::string s = absl::StrCat(node.name, ":", node.extent,
                                 node.kind == IterKind::kSpatial ? " spatial" : " reduce");
    if (stage.iters[i].annotation != IterAnnotation::kNone)
      absl::StrAppend(&s, " ", AnnotationName(stage.iters[i].annotation));
    out.push_back(s);
  }
  return out;
}

std::string OpLine(const te::ComputeDag& dag, const std::string& name) {
  for (absl::string_view line : absl::StrSplit(dag.ToString(), '\n'))
    if (absl::StartsWith(line, absl::StrCat(name, ": "))) return std::string(line);
  return "";
}

}  // namespace tuneforge::schedule::testing
