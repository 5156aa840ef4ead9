// PrintDefinition: every op of the library, epilogue chains, dtypes, the
// example definitions and hand-built DAGs print as definitions that read back
// with the same canonical text and workload key; what the language cannot
// express is an error naming the op.
#include <cmath>
#include <filesystem>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/te/definition/printer.h"
#include "common/te/expr_util.h"
#include "common/te/ops/op_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::HasSubstr;

// Beyond optest::OpSamples() (one or more per op of the table): more
// variants, epilogue chains, dtypes.
const char* const kMoreSpecs[] = {
    "depthwise_conv2d:N=1,C=4,H=8,W=8,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,pad=1",
    // Epilogue chains.
    "conv2d+bias+relu:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1",
    "dense+bias+gelu:M=3,N=4,K=5",
    "matmul+relu:M=3,N=4,K=5",
    "conv2d+add+relu:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1",
    "matmul+relu6+leaky_relu+sigmoid+tanh+silu+mul:M=3,N=4,K=5",
    "relu+relu+relu:M=3,N=4",  // stages named relu, relu_1, relu_2
    // Other dtypes: constants of int8/int32/float64 and the integer minima of max pooling.
    "matmul:M=3,N=4,K=5,dtype=int32",
    "batch_matmul:B=2,M=3,N=4,K=5,dtype=int8",
    "conv2d+bias+relu:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1,dtype=float64",
    "dense+bias+gelu:M=3,N=4,K=5,dtype=float64",
    "conv2d+bias+relu6:N=1,C=2,H=5,W=5,K=2,R=3,S=3,pad=1,dtype=int32",
    "depthwise_conv2d+bias+leaky_relu:N=1,C=2,H=6,W=6,R=3,S=3,stride=2,pad=1,dtype=float64",
    "max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1,dtype=float64",
    "max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1,dtype=int32",
    "max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1,dtype=int64",
    "max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1,dtype=int8",
    "avg_pool2d:N=1,C=2,H=5,W=5,R=2,S=2,stride=2,dtype=int32",
    "softmax:M=3,N=5,dtype=float64",
    "layer_norm:M=3,N=5,dtype=float64",
    "norm:M=3,N=5,dtype=float64",
    "relu:N=1,C=3,H=2,W=2,dtype=int8",
};

// Every spec the printer tests walk.
std::vector<std::string> Specs() {
  std::vector<std::string> specs = optest::OpSamples();
  specs.insert(specs.end(), std::begin(kMoreSpecs), std::end(kMoreSpecs));
  return specs;
}

// Prints `dag`, reads the text back and expects the same canonical text and
// key; printing the read-back DAG gives the same text again.
void ExpectRoundTrip(const ComputeDag& dag, const std::string& what) {
  absl::StatusOr<std::string> text = definition::PrintDefinition(dag);
  ASSERT_TRUE(text.ok()) << what << ": " << text.status() << "\n" << dag.ToString();
  absl::StatusOr<Workload> back = ParseDefinition(*text, "printed");
  ASSERT_TRUE(back.ok()) << what << ": " << back.status() << "\n" << *text;
  EXPECT_EQ(back->dag->canonical_text(), dag.canonical_text()) << what << "\n" << *text;
  EXPECT_EQ(back->dag->workload_key(), dag.workload_key()) << what;
  absl::StatusOr<std::string> again = definition::PrintDefinition(*back->dag);
  ASSERT_TRUE(again.ok()) << what << ": " << again.status();
  EXPECT_EQ(*again, *text) << what;
}

absl::Status PrintError(const ComputeDag& dag) {
  absl::StatusOr<std::string> text = definition::PrintDefinition(dag);
  EXPECT_FALSE(text.ok()) << *text;
  return text.status();
}

Tensor MustCompute(std::string name, std::vector<int64_t> shape, const ComputeFn& fn) {
  absl::StatusOr<Tensor> t = Compute(std::move(name), std::move(shape), fn);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(DefinitionPrinterTest, EveryOpAndEpilogueIsSampled) {
  absl::flat_hash_set<std::string> ops, epilogues;
  for (const std::string& spec : Specs()) {
    std::string names = spec.substr(0, spec.find(':'));
    ops.insert(names.substr(0, names.find('+')));
    for (size_t plus = names.find('+'); plus != std::string::npos; plus = names.find('+', plus + 1))
      epilogues.insert(names.substr(plus + 1, names.find('+', plus + 1) - plus - 1));
  }
  for (const ops::OpDef& op : ops::OpTable()) EXPECT_TRUE(ops.contains(op.info.name)) << op.info.name;
  for (const ops::EpilogueInfo& e : ops::ListEpilogues())
    EXPECT_TRUE(epilogues.contains(e.name)) << e.name;
}

TEST(DefinitionPrinterTest, LibraryOpsReadBackWithTheirKey) {
  for (const std::string& spec : Specs()) {
    Workload w = optest::MustParse(spec);
    ASSERT_NE(w.dag, nullptr) << spec;
    ExpectRoundTrip(*w.dag, spec);
  }
}

TEST(DefinitionPrinterTest, ExampleDefinitionsReadBackWithTheirKey) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TF_TEST_DATA_DIR) + "/defs")) {
    if (entry.path().extension() != ".def") continue;
    ++count;
    absl::StatusOr<Workload> w = LoadDefinitionFile(entry.path().string());
    ASSERT_TRUE(w.ok()) << w.status();
    ExpectRoundTrip(*w->dag, entry.path().filename().string());
  }
  EXPECT_GE(count, 4);
}

TEST(DefinitionPrinterTest, PrintsTheLanguage) {
  absl::StatusOr<std::string> text =
      definition::PrintDefinition(*optest::MustParse("matmul+relu:M=3,N=4,K=5").dag);
  ASSERT_TRUE(text.ok()) << text.status();
  // B is the matmul's weight: a constant.
  EXPECT_THAT(*text, HasSubstr("input A: float32[3, 5]\ninput B: float32[5, 4] constant\n"));
  EXPECT_THAT(*text, HasSubstr("[i: 3, j: 4] = sum((A[i, k] * B[k, j]), k: 5)\n"));
  EXPECT_THAT(*text, HasSubstr("relu[i: 3, j: 4] = max("));
  EXPECT_THAT(*text, HasSubstr("\noutput relu\n"));
}

// A constant input (a weight) is part of the workload: it reads back, and
// the same math over a non-constant input is another workload.
TEST(DefinitionPrinterTest, ConstantInputsReadBackAndChangeTheKey) {
  const std::string math = "C[i: 4, j: 4] = sum(A[i, k] * B[k, j], k: 4)\n";
  absl::StatusOr<Workload> constant =
      ParseDefinition("input A: float32[4, 4]\ninput B: float32[4, 4] constant\n" + math);
  absl::StatusOr<Workload> plain = ParseDefinition("input A: float32[4, 4]\ninput B: float32[4, 4]\n" + math);
  ASSERT_TRUE(constant.ok()) << constant.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(constant->dag->op(0)->constant);
  EXPECT_TRUE(constant->dag->op(1)->constant);
  EXPECT_NE(constant->dag->workload_key(), plain->dag->workload_key());
  absl::StatusOr<std::string> text = definition::PrintDefinition(*constant->dag);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<Workload> back = ParseDefinition(*text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dag->workload_key(), constant->dag->workload_key());
}

// Names that are not identifiers, or are keywords, functions or types of the
// language, or collide once made identifiers, are renamed.
TEST(DefinitionPrinterTest, NamesBecomeFreshIdentifiers) {
  Tensor a = Placeholder("input", {4});
  Tensor b = Placeholder("in put", {4});
  Tensor c = Placeholder("in_put", {4});
  Tensor d = Placeholder("0x", {4});
  Tensor sum = MustCompute("exp", {4}, [&](const std::vector<Var>& v) {
    return Read(a, {v[0]}) + Read(b, {v[0]}) + Read(c, {v[0]}) + Read(d, {v[0]});
  });
  IterVar where{MakeVar("where"), 4}, x{MakeVar("input"), 2}, y{MakeVar("input"), 2};
  IterVar k = ReduceAxis(4, "float32");
  absl::StatusOr<Tensor> out =
      MakeCompute("output", {where, x, y}, Sum(Read(sum, {Expr(k.var)}) * Expr(x.var), {k}));
  ASSERT_TRUE(out.ok()) << out.status();
  ComputeDag dag = optest::MustDag({*out});
  ExpectRoundTrip(dag, "names");
  absl::StatusOr<std::string> text = definition::PrintDefinition(dag);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("input input_1: float32[4]\ninput in_put: float32[4]\n"
                               "input in_put_1: float32[4]\ninput _0x: float32[4]\n"));
  EXPECT_THAT(*text, HasSubstr("exp_1[i: 4] = "));
  EXPECT_THAT(*text, HasSubstr("output_1[where_1: 4, input_2: 2, input_3: 2] = sum("));
  EXPECT_THAT(*text, HasSubstr("float32_1: 4)"));
}

// Constants keep value and dtype: doubles and floats to the last bit, infinities,
// integer extremes, and float64/int32/int8 constants where no operand types them.
TEST(DefinitionPrinterTest, ConstantsKeepValueAndType) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = Placeholder("x", {4}, DType::Float64());
  Tensor f = Placeholder("f", {4}, DType::Float32());
  Tensor n = Placeholder("n", {4}, DType::Int32());
  Tensor m = Placeholder("m", {4}, DType::Int8());
  Tensor l = Placeholder("l", {4}, DType::Int64());
  Tensor a = MustCompute("a", {4}, [&](const std::vector<Var>& v) {
    Expr xi = Read(x, {v[0]});
    Expr sel = MakeSelect(xi > FloatConst(0.1, DType::Float64()), FloatConst(1.0 / 3, DType::Float64()),
                          FloatConst(-1e300, DType::Float64()));
    Expr tiny = MakeSelect(xi < FloatConst(-inf, DType::Float64()),
                           FloatConst(5e-324, DType::Float64()), FloatConst(-0.0, DType::Float64()));
    return xi * FloatConst(0.1, DType::Float64()) + sel + tiny;
  });
  Tensor b = MustCompute("b", {4}, [&](const std::vector<Var>& v) {
    Expr fi = Read(f, {v[0]});
    return MakeSelect(fi >= FloatConst(inf), FloatConst(3.4028234663852886e38),
                      fi * FloatConst(static_cast<double>(1e-5f)) + FloatConst(0.70710678118654752440));
  });
  Tensor c = MustCompute("c", {4}, [&](const std::vector<Var>& v) {
    Expr ni = Read(n, {v[0]});
    Expr limits = MakeSelect(ni > IntConst(0, DType::Int32()),
                             IntConst(std::numeric_limits<int32_t>::min(), DType::Int32()),
                             IntConst(-7, DType::Int32()));
    return limits + MakeCast(DType::Int32(), MakeSelect(Read(m, {v[0]}) < IntConst(-128, DType::Int8()),
                                                        IntConst(127, DType::Int8()),
                                                        IntConst(-3, DType::Int8())));
  });
  Tensor d = MustCompute("d", {4}, [&](const std::vector<Var>& v) {
    return MakeSelect(EQ(Read(l, {v[0]}), IntConst(std::numeric_limits<int64_t>::min())),
                      IntConst(std::numeric_limits<int64_t>::max()),
                      IntConst(std::numeric_limits<int64_t>::min()));
  });
  ExpectRoundTrip(optest::MustDag({a, b, c, d}), "constants");
}

// Every operator, intrinsic, cast, select and a reduction with a where
// condition, in one DAG of two outputs.
TEST(DefinitionPrinterTest, EveryExpressionKindReadsBack) {
  Tensor x = Placeholder("x", {6, 4});
  Tensor n = Placeholder("n", {6}, DType::Int32());
  Tensor math = MustCompute("math", {6, 4}, [&](const std::vector<Var>& v) {
    Expr e = Read(x, {v[0], v[1]});
    Expr calls = MakeCall(Intrinsic::kExp, {e}) + MakeCall(Intrinsic::kLog, {e}) +
                 MakeCall(Intrinsic::kSqrt, {e}) + MakeCall(Intrinsic::kRsqrt, {e}) +
                 MakeCall(Intrinsic::kTanh, {e}) + MakeCall(Intrinsic::kSigmoid, {e}) +
                 MakeCall(Intrinsic::kErf, {e}) + MakeCall(Intrinsic::kAbs, {e}) +
                 MakeCall(Intrinsic::kFloor, {e}) + MakeCall(Intrinsic::kCeil, {e}) +
                 MakeCall(Intrinsic::kRound, {e}) + MakeCall(Intrinsic::kPow, {e, FloatConst(2.5)}) +
                 MakeCall(Intrinsic::kPow, {FloatConst(2.0), e});
    Expr ints = Read(n, {v[0]});
    Expr int_ops = MakeBinary(BinOp::kDiv, ints, IntConst(3, DType::Int32())) +
                   FloorDiv(ints, IntConst(-2, DType::Int32())) * FloorMod(IntConst(7, DType::Int32()), ints) -
                   Min(ints, IntConst(4, DType::Int32())) + Max(IntConst(1, DType::Int32()), ints);
    Expr cond = LogicalOr(LogicalAnd(LogicalNot(e < FloatConst(0.0)), NE(Expr(v[1]), IntConst(2))),
                          EQ(FloorMod(Expr(v[0]), IntConst(2)), IntConst(0)));
    return MakeSelect(cond, calls / e - MakeCast(DType::Float32(), int_ops), -e) +
           MakeCast(DType::Float32(), Expr(v[0]) * IntConst(4) + Expr(v[1]));
  });
  IterVar k = ReduceAxis(4, "k");
  Tensor row_min = MustCompute("row_min", {6}, [&](const std::vector<Var>& v) {
    return MinReduce(Read(math, {v[0], Expr(k.var)}), {k},
                     LogicalAnd(Expr(k.var) >= Expr(v[0]) - IntConst(3), IntConst(1) < IntConst(2)));
  });
  IterVar r = ReduceAxis(6, "r");
  Tensor col_max = MustCompute("col_max", {4}, [&](const std::vector<Var>& v) {
    return MaxReduce(MakeCast(DType::Float64(), Read(math, {Expr(r.var), v[0]})), {r});
  });
  ExpectRoundTrip(optest::MustDag({row_min, col_max}), "every kind");
}

// A DAG in op order rather than depth-first order (ComputeDag::CreateFromOps)
// prints when the orders agree.
TEST(DefinitionPrinterTest, DagsFromOpListsInDepthFirstOrderReadBack) {
  Tensor a = Placeholder("a", {4}), b = Placeholder("b", {4});
  Tensor c = MustCompute("c", {4}, [&](const std::vector<Var>& v) {
    return Read(a, {v[0]}) * Read(b, {v[0]});
  });
  absl::StatusOr<ComputeDag> dag = ComputeDag::CreateFromOps({a, b, c});
  ASSERT_TRUE(dag.ok()) << dag.status();
  ExpectRoundTrip(*dag, "op list");
}

// ---- What the language cannot express --------------------------------------

TEST(DefinitionPrinterTest, TruncatingRemainderIsAnError) {
  Tensor n = Placeholder("n", {4}, DType::Int32());
  Tensor rem = MustCompute("rem", {4}, [&](const std::vector<Var>& v) {
    return MakeBinary(BinOp::kMod, Read(n, {v[0]}), IntConst(3, DType::Int32()));
  });
  absl::Status s = PrintError(optest::MustDag({rem}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("op 'rem': the definition language has no truncating remainder"));
}

TEST(DefinitionPrinterTest, ConstantOnlyNodesAreErrors) {
  Tensor x = Placeholder("x", {4});
  auto dag_of = [&](Expr extra) {
    return optest::MustDag({MustCompute("y", {4}, [&](const std::vector<Var>& v) {
      return Read(x, {v[0]}) + extra;
    })});
  };
  EXPECT_THAT(PrintError(dag_of(MakeBinary(BinOp::kAdd, FloatConst(1.0), FloatConst(2.0)))).message(),
              HasSubstr("op 'y': the definition language has no arithmetic on two constants"));
  EXPECT_THAT(PrintError(dag_of(MakeCast(DType::Float32(), IntConst(3)))).message(),
              HasSubstr("no casts of constants"));
  EXPECT_THAT(PrintError(dag_of(FloatConst(std::nan("")))).message(), HasSubstr("no NaN constants"));
  Expr always = IntConst(1, DType::Bool());
  EXPECT_THAT(PrintError(dag_of(MakeSelect(always, FloatConst(1.0), FloatConst(2.0)))).message(),
              HasSubstr("no boolean constants"));
}

TEST(DefinitionPrinterTest, OpOrderOtherThanDepthFirstIsAnError) {
  Tensor a = Placeholder("a", {4}), b = Placeholder("b", {4}), unused = Placeholder("unused", {4});
  Tensor c = MustCompute("c", {4}, [&](const std::vector<Var>& v) {
    return Read(a, {v[0]}) * Read(b, {v[0]});
  });
  absl::StatusOr<ComputeDag> swapped = ComputeDag::CreateFromOps({b, a, c});
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_THAT(PrintError(*swapped).message(), HasSubstr("op 0 ('b') is out of the depth-first order"));
  absl::StatusOr<ComputeDag> extra = ComputeDag::CreateFromOps({a, b, unused, c});
  ASSERT_TRUE(extra.ok()) << extra.status();
  EXPECT_THAT(PrintError(*extra).message(), HasSubstr("input 'unused' is read by no op"));
}

// A scalar input has no shape to write: the read-back check names the op.
TEST(DefinitionPrinterTest, WhatDoesNotReadBackIsAnErrorNamingTheOp) {
  Tensor s = Placeholder("scalar", {});
  Tensor y = MustCompute("y", {4}, [&](const std::vector<Var>&) { return Read(s, {}); });
  absl::Status status = PrintError(optest::MustDag({y}));
  EXPECT_THAT(status.message(), HasSubstr("does not read back at op 'scalar'"));
}

}  // namespace
}  // namespace tuneforge::te
