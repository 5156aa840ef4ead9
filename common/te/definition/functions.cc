#include "common/te/definition/functions.h"

#include <vector>

#include "absl/strings/str_join.h"

namespace tuneforge::te::definition {
namespace {

constexpr Intrinsic kIntrinsics[] = {
    Intrinsic::kExp,  Intrinsic::kLog, Intrinsic::kSqrt,  Intrinsic::kRsqrt,
    Intrinsic::kTanh, Intrinsic::kSigmoid, Intrinsic::kErf, Intrinsic::kAbs,
    Intrinsic::kFloor, Intrinsic::kCeil, Intrinsic::kRound, Intrinsic::kPow,
};
// Types a value can be cast to (bool comes from comparisons only).
constexpr DType kCastTypes[] = {DType::Float32(), DType::Float64(), DType::Int8(), DType::Int32(),
                                DType::Int64()};

}  // namespace

std::optional<Function> LookupFunction(absl::string_view name) {
  for (Intrinsic fn : kIntrinsics)
    if (name == IntrinsicName(fn)) return IntrinsicFn{fn};
  for (DType t : kCastTypes)
    if (name == ToString(t)) return CastFn{t};
  if (name == "select") return SelectFn{};
  if (name == "min") return MinMaxFn{BinOp::kMin, Combiner::kMin};
  if (name == "max") return MinMaxFn{BinOp::kMax, Combiner::kMax};
  if (name == "sum") return SumFn{};
  return std::nullopt;
}

std::string FunctionNames() {
  std::vector<std::string> names;
  for (Intrinsic fn : kIntrinsics) names.push_back(IntrinsicName(fn));
  for (const char* n : {"select", "min", "max", "sum"}) names.push_back(n);
  for (DType t : kCastTypes) names.push_back(ToString(t));
  return absl::StrJoin(names, ", ");
}

}  // namespace tuneforge::te::definition
