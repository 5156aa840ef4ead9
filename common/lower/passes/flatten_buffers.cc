#include "common/lower/passes/flatten_buffers.h"

#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {
namespace {

Expr FlatIndex(const te::BufferNode& buf, const std::vector<Expr>& indices) {
  if (indices.size() <= 1) return indices.empty() ? Expr(0) : indices[0];
  std::vector<int64_t> strides = buf.effective_strides();
  Expr flat;
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr term = strides[d] == 1 ? indices[d] : indices[d] * Expr(strides[d]);
    flat = flat ? flat + term : term;
  }
  return flat;
}

Expr FlattenExpr(const Expr& e) {
  Expr x = te::MapChildren(e, FlattenExpr);
  if (const auto* load = x.as<te::BufferLoad>(); load && load->indices.size() != 1)
    return te::MakeBufferLoad(load->buffer, {FlatIndex(*load->buffer, load->indices)}, x.dtype());
  return x;
}

}  // namespace

Stmt FlattenBuffers(const Stmt& body) {
  std::function<Stmt(const Stmt&)> rec = [&](const Stmt& s) -> Stmt {
    Stmt t = MapOwnExprs(MapStmtChildren(s, rec), FlattenExpr);
    if (const Store* st = t.as<Store>(); st && st->indices.size() != 1)
      return MakeStore(st->buffer, {FlatIndex(*st->buffer, st->indices)}, st->value);
    return t;
  };
  return body ? rec(body) : body;
}

}  // namespace tuneforge::lower
