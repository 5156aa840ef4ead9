#include "common/te/definition/builder.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/te/definition/bounds_check.h"
#include "common/te/definition/definition.h"
#include "common/te/definition/expr_builder.h"
#include "common/te/definition/parser.h"
#include "common/te/expr_util.h"

namespace tuneforge::te::definition {
namespace {

// Operators have a handful of stages; the cap bounds the DAG's depth, which
// later passes walk recursively.
constexpr int kMaxTensors = 1000;

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string tag) : tag_(std::move(tag)) {}

  absl::StatusOr<std::vector<Tensor>> Run(const Program& program) {
    // Every tensor name first, so a read of a later tensor can say where it is.
    int tensors = 0;
    for (const Statement& s : program.statements) {
      if (const auto* in = std::get_if<InputStmt>(&s.v)) declared_.emplace(in->name, s.pos);
      if (const auto* c = std::get_if<ComputeStmt>(&s.v)) declared_.emplace(c->name, s.pos);
      tensors += std::holds_alternative<InputStmt>(s.v) || std::holds_alternative<ComputeStmt>(s.v);
      if (tensors > kMaxTensors)
        return ErrorAt(s.pos, absl::StrCat("more than ", kMaxTensors, " tensors in one definition; "
                                           "split it into several workloads"));
    }
    for (const Statement& s : program.statements) {
      absl::Status status = std::visit([&](const auto& stmt) { return Add(s, stmt); }, s.v);
      if (!status.ok()) return status;
    }
    return PickOutputs();
  }

 private:
  ExprBuilder Builder(std::string defining) const {
    return ExprBuilder(Scope{&constants_, &tensors_, &declared_, std::move(defining), {}});
  }

  // A let or tensor name must be new: not a let, not a tensor defined above.
  absl::Status CheckNewName(const std::string& name, Pos pos) const {
    std::optional<Pos> first;
    if (auto it = constant_pos_.find(name); it != constant_pos_.end()) first = it->second;
    else if (tensors_.contains(name)) first = declared_.at(name);
    if (!first) return absl::OkStatus();
    return ErrorAt(pos, absl::StrCat("redefinition of '", name, "' (first defined at line ",
                                     first->line, "); pick another name"));
  }

  absl::Status Add(const Statement& s, const LetStmt& let) {
    if (auto st = CheckNewName(let.name, s.pos); !st.ok()) return st;
    if (declared_.contains(let.name))
      return ErrorAt(s.pos, absl::StrCat("redefinition of '", let.name, "': a tensor of that name is "
                                         "defined at line ", declared_.at(let.name).line,
                                         "; pick another name"));
    auto value = Builder("").BuildConstant(*let.value, absl::StrCat("the value of '", let.name, "'"));
    if (!value.ok()) return value.status();
    constants_[let.name] = *value;
    constant_pos_[let.name] = s.pos;
    return absl::OkStatus();
  }

  absl::Status Add(const Statement& s, const InputStmt& in) {
    if (auto st = CheckNewName(in.name, s.pos); !st.ok()) return st;
    std::optional<DType> dtype = ParseDType(in.dtype);
    if (!dtype || dtype->is_bool())
      return ErrorAt(in.dtype_pos, absl::StrCat("unknown type '", in.dtype, "' for input '", in.name,
                                                "'; use float32, float64, int8, int32 or int64"));
    std::vector<int64_t> shape;
    ExprBuilder builder = Builder("");
    for (size_t d = 0; d < in.shape.size(); ++d) {
      auto extent = builder.BuildExtent(*in.shape[d],
                                        absl::StrCat("dimension ", d + 1, " of '", in.name, "'"));
      if (!extent.ok()) return extent.status();
      shape.push_back(*extent);
    }
    tensors_[in.name] = in.constant ? ConstantPlaceholder(in.name, std::move(shape), *dtype)
                                    : Placeholder(in.name, std::move(shape), *dtype);
    inputs_.push_back(in.name);
    return absl::OkStatus();
  }

  absl::Status Add(const Statement& s, const ComputeStmt& c) {
    if (auto st = CheckNewName(c.name, s.pos); !st.ok()) return st;
    ExprBuilder extents = Builder(c.name);
    std::vector<IterVar> axes;
    Scope scope{&constants_, &tensors_, &declared_, c.name, {}};
    for (const AxisDecl& decl : c.axes) {
      if (auto st = ExprBuilder(scope).CheckFreshName(decl.name, decl.pos, "axis"); !st.ok())
        return st;
      auto extent = extents.BuildExtent(
          *decl.extent, absl::StrCat("the extent of axis '", decl.name, "' of '", c.name, "'"));
      if (!extent.ok()) return extent.status();
      axes.push_back(IterVar{MakeVar(decl.name), *extent});
      scope.axes.push_back({decl.name, axes.back().var});
    }
    auto body = ExprBuilder(scope).BuildBody(*c.body);
    if (!body.ok()) return body.status();
    if (body->dtype().is_bool())
      return ErrorAt(c.body->pos, absl::StrCat("'", c.name, "' would hold conditions (bool); turn "
                                               "them into numbers with select(condition, 1.0, 0.0)"));
    auto tensor = MakeCompute(c.name, std::move(axes), *body, tag_);
    if (!tensor.ok()) return ErrorAt(s.pos, tensor.status().message());
    if (auto st = CheckReadsInBounds(*tensor); !st.ok()) return ErrorAt(s.pos, st.message());
    tensors_[c.name] = *tensor;
    computes_.push_back(c.name);
    return absl::OkStatus();
  }

  absl::Status Add(const Statement&, const OutputStmt& out) {
    for (const auto& [name, pos] : out.names) {
      for (const auto& [seen, unused] : outputs_)
        if (seen == name)
          return ErrorAt(pos, absl::StrCat("'", name, "' is listed as an output twice"));
      outputs_.push_back({name, pos});
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Tensor>> PickOutputs() {
    if (computes_.empty())
      return absl::InvalidArgumentError(
          "the definition computes nothing; add a statement like C[i: 64] = A[i] * 2.0");
    absl::flat_hash_set<std::string> read;
    for (const std::string& name : computes_)
      PostOrderVisit(tensors_.at(name)->body, [&](const Expr& e) {
        if (const auto* r = e.as<TensorRead>()) read.insert(r->tensor->name);
      });
    for (const std::string& name : inputs_)
      if (!read.contains(name))
        return ErrorAt(declared_.at(name), absl::StrCat("input '", name, "' is never read; remove "
                                                        "it or use it"));
    std::vector<Tensor> outputs;
    if (outputs_.empty()) {
      for (const std::string& name : computes_)
        if (!read.contains(name)) outputs.push_back(tensors_.at(name));
      return outputs;
    }
    absl::flat_hash_set<std::string> listed;
    for (const auto& [name, pos] : outputs_) {
      auto it = tensors_.find(name);
      if (it == tensors_.end())
        return ErrorAt(pos, absl::StrCat("unknown tensor '", name, "' on the output line"));
      if (it->second->is_placeholder())
        return ErrorAt(pos, absl::StrCat("input '", name, "' cannot be an output; outputs are "
                                         "computed tensors"));
      if (read.contains(name))
        return ErrorAt(pos, absl::StrCat("'", name, "' is read by another tensor, so it cannot be "
                                         "an output (outputs are final results); drop it from the "
                                         "output line"));
      listed.insert(name);
      outputs.push_back(it->second);
    }
    for (const std::string& name : computes_)
      if (!read.contains(name) && !listed.contains(name))
        return ErrorAt(declared_.at(name), absl::StrCat("'", name, "' is computed but never used; "
                                                        "list it on the output line or remove it"));
    return outputs;
  }

  std::string tag_;
  absl::flat_hash_map<std::string, Expr> constants_;
  absl::flat_hash_map<std::string, Pos> constant_pos_;
  absl::flat_hash_map<std::string, Tensor> tensors_;
  absl::flat_hash_map<std::string, Pos> declared_;  // every tensor of the file
  std::vector<std::string> inputs_, computes_;       // in definition order
  std::vector<std::pair<std::string, Pos>> outputs_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> BuildProgram(const Program& program, const std::string& tag) {
  return ProgramBuilder(tag).Run(program);
}

absl::StatusOr<std::vector<Tensor>> BuildDefinition(absl::string_view text, const std::string& name) {
  auto program = Parse(text);
  if (!program.ok()) return program.status();
  return BuildProgram(*program, name);
}

}  // namespace tuneforge::te::definition
