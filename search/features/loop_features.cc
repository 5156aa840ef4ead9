// Features of the loops around a store: vectorize / unroll / parallel
// (len, num, prod, position of the innermost one), GPU binding extents,
// allocation and the loop count and trip product.
#include <algorithm>

#include "search/features/store_row.h"

namespace tuneforge::search::features {
namespace {

using lower::ForKind;

// Position of the loop at position p among the store's loops (the vector
// lanes, position n, count as the innermost loop), after Ansor:
//  - its variable occurs in the output index: spatial; more than once (a
//    fused loop split back into dimensions by floordiv and floormod):
//    mixed;
//  - it does not, and the loop is outside the Allocate of the stored
//    buffer: the loop of a consumer the stage is computed in, an outer
//    spatial loop from the store's point of view;
//  - otherwise: reduce.
// Among the loops of its kind (spatial or reduce, extent > 1) the
// innermost is "inner" (also when alone), the outermost "outer", the
// others "middle".
Position PositionOf(const StoreInput& in, int p) {
  const StoreAccesses& acc = in.access();
  const AccessIndex& out = acc.output_index();
  int alloc_depth = 0;
  if (auto it = in.walk.allocations.find(in.site().store->buffer.get()); it != in.walk.allocations.end())
    alloc_depth = it->second.depth;
  enum class Kind { kSpatial, kConsumer, kReduce };
  auto kind = [&](int q) {
    return out.coef[q] != 0 ? Kind::kSpatial : q < alloc_depth ? Kind::kConsumer : Kind::kReduce;
  };
  if (out.occurrences[p] > 1) return Position::kMixed;
  if (kind(p) == Kind::kConsumer) return Position::kOuterSpatial;
  int first = -1, last = -1;
  for (int q = 0; q < static_cast<int>(out.coef.size()); ++q) {
    if (kind(q) != kind(p) || (acc.extents[q] <= 1 && q != p)) continue;
    if (first < 0) first = q;
    last = q;
  }
  const int rank = p == last ? 0 : p == first ? 2 : 1;  // inner, middle, outer
  constexpr Position kSpatial[] = {Position::kInnerSpatial, Position::kMiddleSpatial,
                                   Position::kOuterSpatial};
  constexpr Position kReduce[] = {Position::kInnerReduce, Position::kMiddleReduce,
                                  Position::kOuterReduce};
  return kind(p) == Kind::kSpatial ? kSpatial[rank] : kReduce[rank];
}

// len / num / prod / position for the loops of `kind`, written from `base`
// (= kF_vec_len, kF_unroll_len or kF_parallel_len; the 11 columns of each
// annotation are laid out alike).
void WriteAnnotation(const StoreInput& in, ForKind kind, int base, double* row) {
  const StoreSite& site = in.site();
  const StoreAccesses& acc = in.access();
  const int n = acc.num_loops();
  int innermost = -1, num = 0;
  double prod = 1;
  for (int p = 0; p <= n; ++p) {
    // Lanes of a vector store (a program lowered with vectorize on) are
    // one more, innermost, vectorized loop.
    bool match = p < n ? in.walk.loops[site.loops[p]].kind == kind
                       : kind == ForKind::kVectorized && acc.extents[n] > 1;
    if (!match) continue;
    innermost = p;
    ++num;
    prod *= static_cast<double>(acc.extents[p]);
  }
  // Column offsets from `base`, the same for the three annotations.
  constexpr int len_col = 0, num_col = kF_vec_num - kF_vec_len, prod_col = kF_vec_prod - kF_vec_len,
                pos_col = kF_vec_pos_inner_spatial - kF_vec_len;
  if (innermost < 0) {
    row[base + pos_col + static_cast<int>(Position::kNone)] = 1;
    return;
  }
  row[base + len_col] = static_cast<double>(acc.extents[innermost]);
  row[base + num_col] = num;
  row[base + prod_col] = prod;
  row[base + pos_col + static_cast<int>(PositionOf(in, innermost))] = 1;
}

int GpuColumn(ForKind kind) {
  switch (kind) {
    case ForKind::kBlockX: return kF_blockIdx_x_len;
    case ForKind::kBlockY: return kF_blockIdx_y_len;
    case ForKind::kBlockZ: return kF_blockIdx_z_len;
    case ForKind::kThreadX: return kF_threadIdx_x_len;
    case ForKind::kThreadY: return kF_threadIdx_y_len;
    case ForKind::kThreadZ: return kF_threadIdx_z_len;
    case ForKind::kVThread: return kF_vthread_len;
    case ForKind::kSerial:
    case ForKind::kParallel:
    case ForKind::kVectorized:
    case ForKind::kUnrolled:
    case ForKind::kRolled: return -1;
  }
  return -1;
}

}  // namespace

void WriteLoopFeatures(const StoreInput& in, double* row) {
  const StoreSite& site = in.site();
  WriteAnnotation(in, ForKind::kVectorized, kF_vec_len, row);
  WriteAnnotation(in, ForKind::kUnrolled, kF_unroll_len, row);
  WriteAnnotation(in, ForKind::kParallel, kF_parallel_len, row);
  // Outermost first, so the innermost loop of a binding wins.
  for (int l : site.loops)
    if (int col = GpuColumn(in.walk.loops[l].kind); col >= 0)
      row[col] = static_cast<double>(in.walk.loops[l].extent);

  const double outer = static_cast<double>(site.outer_prod);
  if (auto it = in.walk.allocations.find(site.store->buffer.get()); it != in.walk.allocations.end()) {
    const te::BufferNode& b = *it->second.buffer;
    double size = static_cast<double>(b.alloc_elements()) * b.dtype.bytes();
    double alloc_outer = std::max<double>(1, static_cast<double>(it->second.outer_prod));
    row[kF_alloc_size] = size;
    row[kF_alloc_outer_prod] = alloc_outer;
    row[kF_alloc_prod] = size * alloc_outer;
    row[kF_alloc_inner_prod] = outer / alloc_outer;
  }
  row[kF_outer_prod] = outer;
  row[kF_num_loops] = static_cast<double>(site.loops.size());
}

void WriteComputeFeatures(const StoreInput& in, const OpCounts& ops, double* row) {
  const double outer = static_cast<double>(in.site().outer_prod);
  for (int i = 0; i < kNumOpCounts; ++i) row[kF_float_mad + i] = ops[i] * outer;
}

}  // namespace tuneforge::search::features
