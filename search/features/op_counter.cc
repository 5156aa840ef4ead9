#include "search/features/op_counter.h"

#include "common/overloaded.h"

namespace tuneforge::search::features {
namespace {

using te::BinOp;
using te::Expr;

// Offset of a category from kF_float_mad; the int category is the float
// one plus kIntShift (feature_table.h checks both runs line up).
enum Category : int {
  kMad = kF_float_mad - kF_float_mad,
  kAddSub = kF_float_addsub - kF_float_mad,
  kMul = kF_float_mul - kF_float_mad,
  kDivMod = kF_float_divmod - kF_float_mad,
  kCmp = kF_float_cmp - kF_float_mad,
  kMathFunc = kF_float_math_func - kF_float_mad,
  kOtherFunc = kF_float_other_func - kF_float_mad,
};
constexpr int kIntShift = kF_int_mad - kF_float_mad;
constexpr int kBoolOp = kF_bool_op - kF_float_mad;
constexpr int kSelectOp = kF_select_op - kF_float_mad;

class Counter {
 public:
  explicit Counter(OpCounts* counts) : counts_(*counts) {}

  void Count(const Expr& e) {
    if (!e) return;
    const double lanes = e.dtype().lanes;
    std::visit(
        Overloaded{
            [&](const te::Binary& n) { CountBinary(n, e.dtype(), lanes); },
            [&](const te::Not& n) {
              counts_[kBoolOp] += lanes;
              Count(n.a);
            },
            [&](const te::Select& n) {
              counts_[kSelectOp] += lanes;
              Count(n.cond);
              Count(n.true_value);
              Count(n.false_value);
            },
            [&](const te::Cast& n) {
              Add(kOtherFunc, e.dtype(), lanes);
              Count(n.value);
            },
            [&](const te::Call& n) {
              Add(kMathFunc, e.dtype(), lanes);
              for (const Expr& a : n.args) Count(a);
            },
            [&](const te::Broadcast& n) { Count(n.value); },
            // Leaves, and index-only nodes: a load's and a ramp's operands
            // are addresses, not computation.
            [&](const te::BufferLoad&) {}, [&](const te::Ramp&) {}, [&](const te::IntImm&) {},
            [&](const te::FloatImm&) {}, [&](const te::VarRef&) {},
            // Tensor-level nodes never reach a lowered program.
            [&](const te::TensorRead&) {}, [&](const te::Reduce&) {},
        },
        e->v);
  }

 private:
  void Add(int category, te::DType type, double lanes) {
    counts_[type.is_float() ? category : category + kIntShift] += lanes;
  }

  static const te::Binary* AsMul(const Expr& e) {
    const te::Binary* b = e.as<te::Binary>();
    return b && b->op == BinOp::kMul ? b : nullptr;
  }

  void CountBinary(const te::Binary& n, te::DType type, double lanes) {
    switch (n.op) {
      case BinOp::kAdd:
      case BinOp::kSub: {
        // a*b + c: one mad; the product's operands are counted, not the
        // product itself.
        const te::Binary* mul = AsMul(n.a);
        const Expr* other = &n.b;
        if (!mul) {
          mul = AsMul(n.b);
          other = &n.a;
        }
        if (mul) {
          Add(kMad, type, lanes);
          Count(mul->a);
          Count(mul->b);
          Count(*other);
          return;
        }
        Add(kAddSub, type, lanes);
        break;
      }
      case BinOp::kMul: Add(kMul, type, lanes); break;
      case BinOp::kDiv:
      case BinOp::kMod:
      case BinOp::kFloorDiv:
      case BinOp::kFloorMod: Add(kDivMod, type, lanes); break;
      case BinOp::kMin:
      case BinOp::kMax: Add(kCmp, type, lanes); break;
      // Comparisons are typed by their operands (the result is bool).
      case BinOp::kEQ:
      case BinOp::kNE:
      case BinOp::kLT:
      case BinOp::kLE:
      case BinOp::kGT:
      case BinOp::kGE: Add(kCmp, n.a.dtype(), lanes); break;
      case BinOp::kAnd:
      case BinOp::kOr: counts_[kBoolOp] += lanes; break;
    }
    Count(n.a);
    Count(n.b);
  }

  OpCounts& counts_;
};

}  // namespace

OpCounts CountOps(const StoreSite& site) {
  OpCounts counts{};
  Counter counter(&counts);
  counter.Count(site.store->value);
  for (const te::Expr* guard : site.guards) counter.Count(*guard);
  return counts;
}

double TotalOps(const OpCounts& counts) {
  double total = 0;
  for (double c : counts) total += c;
  return total + counts[kMad] + counts[kMad + kIntShift];
}

}  // namespace tuneforge::search::features
