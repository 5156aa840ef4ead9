#include "search/features/access_pattern.h"

#include <algorithm>
#include <cmath>

#include "common/overloaded.h"
#include "common/te/expr_util.h"

namespace tuneforge::search::features {
namespace {

using te::BinOp;
using te::Expr;

class Linearizer {
 public:
  Linearizer(const StoreSite& site, const ProgramWalk& walk) : walk_(walk) {
    for (size_t p = 0; p < site.loops.size(); ++p) vars_.push_back(walk.loops[site.loops[p]].var);
  }

  int n() const { return static_cast<int>(vars_.size()); }

  // The form of a buffer access; multi-dimensional indices are flattened.
  AccessIndex Index(const te::BufferNode& buffer, const std::vector<Expr>& indices) const {
    AccessIndex out{std::vector<double>(vars_.size() + 1, 0.0), std::vector<int>(vars_.size() + 1, 0)};
    if (indices.size() == 1) {
      Add(indices[0], 1.0, &out, 0);
    } else {
      std::vector<int64_t> strides = buffer.effective_strides();
      for (size_t d = 0; d < indices.size() && d < strides.size(); ++d)
        Add(indices[d], static_cast<double>(strides[d]), &out, 0);
    }
    return out;
  }

 private:
  // out += scale * form(e).
  void Add(const Expr& e, double scale, AccessIndex* out, int depth) const {
    if (!e || scale == 0 || depth > 64) return;
    std::visit(
        Overloaded{
            [&](const te::VarRef& n) {
              for (size_t p = 0; p < vars_.size(); ++p)
                if (vars_[p] == n.var.get()) {
                  out->coef[p] += scale;
                  ++out->occurrences[p];
                  return;
                }
              if (auto it = walk_.lets.find(n.var.get()); it != walk_.lets.end())
                Add(it->second, scale, out, depth + 1);
            },
            [&](const te::Binary& n) { AddBinary(n, scale, out, depth); },
            [&](const te::Ramp& n) {
              Add(n.base, scale, out, depth + 1);
              out->coef.back() += scale * static_cast<double>(n.stride);
              ++out->occurrences.back();
            },
            [&](const te::Broadcast& n) { Add(n.value, scale, out, depth + 1); },
            [&](const te::Cast& n) { Add(n.value, scale, out, depth + 1); },
            [&](const auto&) { AddOperands(e, scale, out, depth); },
        },
        e->v);
  }

  void AddOperands(const Expr& e, double scale, AccessIndex* out, int depth) const {
    te::ForEachChild(e, [&](const Expr& c) { Add(c, scale, out, depth + 1); });
  }

  void AddBinary(const te::Binary& n, double scale, AccessIndex* out, int depth) const {
    const int64_t* ca = te::AsIntConst(n.a);
    const int64_t* cb = te::AsIntConst(n.b);
    switch (n.op) {
      case BinOp::kAdd:
        Add(n.a, scale, out, depth + 1);
        Add(n.b, scale, out, depth + 1);
        return;
      case BinOp::kSub:
        Add(n.a, scale, out, depth + 1);
        Add(n.b, -scale, out, depth + 1);
        return;
      case BinOp::kMul:
        if (cb) return Add(n.a, scale * static_cast<double>(*cb), out, depth + 1);
        if (ca) return Add(n.b, scale * static_cast<double>(*ca), out, depth + 1);
        break;
      case BinOp::kDiv:
      case BinOp::kFloorDiv:
        if (cb && *cb != 0) return Add(n.a, scale / static_cast<double>(*cb), out, depth + 1);
        break;
      case BinOp::kMod:
      case BinOp::kFloorMod: return Add(n.a, scale, out, depth + 1);
      default: break;
    }
    Add(n.a, scale, out, depth + 1);
    Add(n.b, scale, out, depth + 1);
  }

  const ProgramWalk& walk_;
  std::vector<const te::VarNode*> vars_;
};

BufferAccess* Find(std::vector<BufferAccess>* buffers, const te::BufferNode* b) {
  for (BufferAccess& a : *buffers)
    if (a.buffer == b) return &a;
  return nullptr;
}

void Record(std::vector<BufferAccess>* buffers, const te::BufferNode& buffer, bool write,
            AccessIndex index) {
  BufferAccess* a = Find(buffers, &buffer);
  if (!a) {
    buffers->push_back(BufferAccess{&buffer, false, false, 0,
                                    static_cast<double>(buffer.dtype.bytes()), {}});
    a = &buffers->back();
  }
  (write ? a->write : a->read) = true;
  ++a->accesses;
  for (const AccessIndex& seen : a->indices)
    if (seen.coef == index.coef) return;
  a->indices.push_back(std::move(index));
}

}  // namespace

StoreAccesses AnalyzeAccesses(const StoreSite& site, const ProgramWalk& walk) {
  Linearizer lin(site, walk);
  const lower::Store& store = *site.store;
  StoreAccesses out;
  out.extents.reserve(site.loops.size() + 1);
  for (int l : site.loops) out.extents.push_back(walk.loops[l].extent);
  out.extents.push_back(store.value ? std::max(1, store.value.dtype().lanes) : 1);
  Record(&out.buffers, *store.buffer, /*write=*/true, lin.Index(*store.buffer, store.indices));
  te::PostOrderVisit(store.value, [&](const Expr& e) {
    if (const auto* load = e.as<te::BufferLoad>())
      Record(&out.buffers, *load->buffer, /*write=*/false, lin.Index(*load->buffer, load->indices));
  });
  return out;
}

}  // namespace tuneforge::search::features
