#include "common/te/definition/bounds_check.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/te/arith/interval.h"
#include "common/te/expr_util.h"

namespace tuneforge::te::definition {
namespace {

using Interval = arith::IntInterval;
using Ranges = arith::VarBounds;

// e written as `var + offset`; var is null when e has another form.
struct VarPlusConst {
  const VarNode* var = nullptr;
  int64_t offset = 0;
};
VarPlusConst AsVarPlusConst(const Expr& e) {
  if (const auto* v = e.as<VarRef>()) return {v->var.get(), 0};
  const auto* b = e.as<Binary>();
  if (!b || (b->op != BinOp::kAdd && b->op != BinOp::kSub)) return {};
  if (const int64_t* c = AsIntConst(b->b)) {
    VarPlusConst inner = AsVarPlusConst(b->a);
    inner.offset += b->op == BinOp::kAdd ? *c : -*c;
    return inner;
  }
  if (const int64_t* c = AsIntConst(b->a); c && b->op == BinOp::kAdd) {
    VarPlusConst inner = AsVarPlusConst(b->b);
    inner.offset += *c;
    return inner;
  }
  return {};
}

BinOp Mirror(BinOp op) {  // a < b  <=>  b > a
  switch (op) {
    case BinOp::kLT: return BinOp::kGT;
    case BinOp::kLE: return BinOp::kGE;
    case BinOp::kGT: return BinOp::kLT;
    case BinOp::kGE: return BinOp::kLE;
    default: return op;
  }
}

BinOp Negate(BinOp op) {  // !(a < b)  <=>  a >= b
  switch (op) {
    case BinOp::kLT: return BinOp::kGE;
    case BinOp::kLE: return BinOp::kGT;
    case BinOp::kGT: return BinOp::kLE;
    case BinOp::kGE: return BinOp::kLT;
    case BinOp::kEQ: return BinOp::kNE;
    case BinOp::kNE: return BinOp::kEQ;
    default: return op;
  }
}

// Narrows `ranges` to where the comparison `b` has the value `truth`.
bool NarrowComparison(const Binary& b, bool truth, Ranges& ranges) {
  BinOp op = truth ? b.op : Negate(b.op);
  VarPlusConst lhs = AsVarPlusConst(b.a);
  const int64_t* k = AsIntConst(b.b);
  if (!lhs.var || !k) {  // maybe "constant OP var"
    lhs = AsVarPlusConst(b.b);
    k = AsIntConst(b.a);
    op = Mirror(op);
  }
  if (!lhs.var || !k) {
    // "x % c == k" selects a residue: it narrows no range, and hides nothing.
    const auto* mod = b.a.as<Binary>();
    return mod && (mod->op == BinOp::kFloorMod || mod->op == BinOp::kMod) &&
           (b.op == BinOp::kEQ || b.op == BinOp::kNE) && AsIntConst(b.b);
  }
  auto it = ranges.find(lhs.var);
  if (it == ranges.end()) return true;
  Interval& r = it->second;
  int64_t bound = *k - lhs.offset;  // var OP bound
  switch (op) {
    case BinOp::kLT: r.hi = std::min(r.hi, bound - 1); break;
    case BinOp::kLE: r.hi = std::min(r.hi, bound); break;
    case BinOp::kGT: r.lo = std::max(r.lo, bound + 1); break;
    case BinOp::kGE: r.lo = std::max(r.lo, bound); break;
    case BinOp::kEQ: r = {std::max(r.lo, bound), std::min(r.hi, bound)}; break;
    default: break;
  }
  return true;
}

// Narrows `ranges` to where `cond` has the value `truth`; false when some
// part of the condition could not be read (guarded reads are then trusted).
bool Narrow(const Expr& cond, bool truth, Ranges& ranges) {
  if (const auto* n = cond.as<Not>()) return Narrow(n->a, !truth, ranges);
  if (AsIntConst(cond)) return true;
  const auto* b = cond.as<Binary>();
  if (!b) return false;
  if (b->op == BinOp::kAnd || b->op == BinOp::kOr) {
    // a && b true, or a || b false: both sides hold. Otherwise either may.
    if (truth != (b->op == BinOp::kAnd)) return false;
    bool left = Narrow(b->a, truth, ranges);
    bool right = Narrow(b->b, truth, ranges);
    return left && right;
  }
  return IsComparison(b->op) && NarrowComparison(*b, truth, ranges);
}

bool IsEmpty(const Ranges& ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [](const auto& r) { return r.second.lo > r.second.hi; });
}

class Checker {
 public:
  explicit Checker(const Tensor& op) : op_(op) {}

  absl::Status Visit(const Expr& e, const Ranges& ranges, bool trusted) {
    if (const auto* s = e.as<Select>()) {
      if (auto st = Visit(s->cond, ranges, trusted); !st.ok()) return st;
      for (bool truth : {true, false}) {
        Ranges narrowed = ranges;
        bool understood = Narrow(s->cond, truth, narrowed);
        if (IsEmpty(narrowed)) continue;  // this branch never runs
        const Expr& branch = truth ? s->true_value : s->false_value;
        if (auto st = Visit(branch, narrowed, trusted || !understood); !st.ok()) return st;
      }
      return absl::OkStatus();
    }
    if (const auto* r = e.as<Reduce>()) {
      Ranges inner = ranges;
      for (const IterVar& ax : r->axes) inner[ax.var.get()] = {0, ax.extent - 1};
      bool understood = true;
      if (r->condition) {
        if (auto st = Visit(r->condition, inner, trusted); !st.ok()) return st;
        understood = Narrow(r->condition, true, inner);
        if (IsEmpty(inner)) return absl::OkStatus();
      }
      return Visit(r->source, inner, trusted || !understood);
    }
    absl::Status status;
    ForEachChild(e, [&](const Expr& c) {
      if (status.ok()) status = Visit(c, ranges, trusted);
    });
    if (!status.ok()) return status;
    if (const auto* read = e.as<TensorRead>(); read && !trusted) return CheckRead(e, *read, ranges);
    return absl::OkStatus();
  }

 private:
  absl::Status CheckRead(const Expr& e, const TensorRead& read, const Ranges& ranges) {
    for (size_t d = 0; d < read.indices.size() && d < read.tensor->shape.size(); ++d) {
      std::optional<Interval> range = arith::ConstBounds(read.indices[d], ranges);
      int64_t extent = read.tensor->shape[d];
      if (!range || (range->lo >= 0 && range->hi < extent)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "'", op_->name, "' reads ", ToString(e), " out of bounds: index ", d + 1,
          " ranges over [", range->lo, ", ", range->hi, "] but '", read.tensor->name,
          "' has extent ", extent, " there (valid: 0 to ", extent - 1,
          "); shrink the axes or guard the read with select(...)"));
    }
    return absl::OkStatus();
  }

  const Tensor& op_;
};

}  // namespace

absl::Status CheckReadsInBounds(const Tensor& op) {
  if (!op->is_compute()) return absl::OkStatus();
  Ranges ranges;
  for (const IterVar& ax : op->axes) ranges[ax.var.get()] = {0, ax.extent - 1};
  return Checker(op).Visit(op->body, ranges, false);
}

}  // namespace tuneforge::te::definition
