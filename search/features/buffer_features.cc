// Per-buffer features (access type, bytes, lines, reuse, stride) and the
// arithmetic intensity curve, both from the linear access forms.
#include <algorithm>
#include <cmath>
#include <string>

#include "search/features/store_row.h"

namespace tuneforge::search::features {
namespace {

// Product of extents[from, to).
double Trips(const std::vector<int64_t>& extents, int from, int to) {
  double p = 1;
  for (int q = std::max(from, 0); q < to; ++q) p *= static_cast<double>(extents[q]);
  return p;
}

// Unique bytes of all the store's buffers while positions >= level run.
double FootprintBytes(const StoreAccesses& acc, int level) {
  double bytes = 0;
  for (const BufferAccess& b : acc.buffers) bytes += BufferElements(b, acc.extents, level) * b.elem_bytes;
  return bytes;
}

const BufferAccess* FindBuffer(const StoreAccesses& acc, const te::BufferNode* buffer) {
  for (const BufferAccess& b : acc.buffers)
    if (b.buffer == buffer) return &b;
  return nullptr;
}

// The innermost position (lanes included) whose step moves `index`, or -1.
int StrideLoop(const AccessIndex& index) {
  for (int p = static_cast<int>(index.coef.size()) - 1; p >= 0; --p)
    if (index.coef[p] != 0) return p;
  return -1;
}

// Lines fetched when only the stride loop t reuses lines: each sweep of t
// covers min(e_t, ceil(((e_t - 1) * |c_t| + 1) / line)) lines, once per
// iteration of the loops outside t; loops inside t repeat one address.
double FetchedLines(const AccessIndex& index, const std::vector<int64_t>& extents, double per_line) {
  int t = StrideLoop(index);
  if (t < 0) return 1;
  double e = static_cast<double>(extents[t]);
  double sweep = std::min(e, std::ceil(((e - 1) * std::fabs(index.coef[t]) + 1) / per_line));
  return sweep * Trips(extents, 0, t);
}

struct Reuse {
  int type = kB_reuse_type_no_reuse;
  double dis_iter = 0, dis_bytes = 0, count = 0;
};

// Walks the store's loops from the innermost out; the first loop that
// reuses the buffer decides:
//  loop multiple read: no index of the buffer moves with loop p, so each
//    element is used extent(p) times, extent(p) apart by the iterations of
//    the loops inside p and the bytes all buffers touch in one iteration;
//  serial multiple read-write: other stores inside loop p access the
//    buffer; reuse_ct = their number, the distance in iterations is the
//    fewest iterations any of those stores makes in one iteration of p,
//    in bytes what they (this one included) touch in one iteration of p.
Reuse FindReuse(const StoreInput& in, const BufferAccess& buffer) {
  const StoreAccesses& acc = in.access();
  const int n = acc.num_loops();
  for (int p = n - 1; p >= 0; --p) {
    if (acc.extents[p] <= 1) continue;
    bool moves = false;
    for (const AccessIndex& index : buffer.indices) moves = moves || index.coef[p] != 0;
    if (!moves)
      return {kB_reuse_type_loop_multiple_read, Trips(acc.extents, p + 1, n),
              FootprintBytes(acc, p + 1), static_cast<double>(acc.extents[p])};
    const Loop& loop = in.walk.loops[in.site().loops[p]];
    Reuse serial{kB_reuse_type_serial_multiple_read_write, Trips(acc.extents, p + 1, n),
                 FootprintBytes(acc, p + 1), 0};
    for (int s = loop.first_store; s < loop.end_store; ++s) {
      const StoreAccesses& other = in.accesses[s];
      if (s == in.store || !FindBuffer(other, buffer.buffer)) continue;
      serial.count += 1;
      serial.dis_iter = std::min(serial.dis_iter, Trips(other.extents, p + 1, other.num_loops()));
      serial.dis_bytes += FootprintBytes(other, p + 1);
    }
    if (serial.count > 0) return serial;
  }
  return {};
}

struct BufferRow {
  std::string name;  // for a stable order among equals
  double v[kNumBufferFeatures] = {};
};

BufferRow DescribeBuffer(const StoreInput& in, const BufferAccess& b) {
  const StoreAccesses& acc = in.access();
  const int n = acc.num_loops();
  const double per_line = std::max(1.0, kCacheLineBytes / b.elem_bytes);
  BufferRow r{b.buffer->name};
  double* v = r.v;
  v[b.read && b.write ? kB_acc_type_read_write : b.write ? kB_acc_type_write : kB_acc_type_read] = 1;
  v[kB_bytes] = Trips(acc.extents, 0, n + 1) * b.accesses * b.elem_bytes;
  v[kB_unique_bytes] = BufferElements(b, acc.extents, 0) * b.elem_bytes;
  for (const AccessIndex& index : b.indices)
    v[kB_lines] = std::max(v[kB_lines], FetchedLines(index, acc.extents, per_line));
  v[kB_unique_lines] = BufferLines(b, acc.extents, 0);
  Reuse reuse = FindReuse(in, b);
  v[reuse.type] = 1;
  v[kB_reuse_dis_iter] = reuse.dis_iter;
  v[kB_reuse_dis_bytes] = reuse.dis_bytes;
  v[kB_reuse_ct] = reuse.count;
  const double ct = std::max(reuse.count, 1.0);
  v[kB_bytes_d_reuse_ct] = v[kB_bytes] / ct;
  v[kB_unique_bytes_d_reuse_ct] = v[kB_unique_bytes] / ct;
  v[kB_lines_d_reuse_ct] = v[kB_lines] / ct;
  v[kB_unique_lines_d_reuse_ct] = v[kB_unique_lines] / ct;
  const AccessIndex& first = b.indices.front();
  if (int t = StrideLoop(first); t >= 0) v[kB_stride] = std::fabs(first.coef[t]);
  return r;
}

}  // namespace

void WriteBufferFeatures(const StoreInput& in, double* row) {
  std::vector<BufferRow> rows;
  rows.reserve(in.access().buffers.size());
  for (const BufferAccess& b : in.access().buffers) rows.push_back(DescribeBuffer(in, b));
  std::sort(rows.begin(), rows.end(), [](const BufferRow& a, const BufferRow& b) {
    if (a.v[kB_bytes] != b.v[kB_bytes]) return a.v[kB_bytes] > b.v[kB_bytes];
    if (a.v[kB_unique_bytes] != b.v[kB_unique_bytes]) return a.v[kB_unique_bytes] > b.v[kB_unique_bytes];
    return a.name < b.name;
  });
  for (int slot = 0; slot < kMaxBuffers && slot < static_cast<int>(rows.size()); ++slot)
    std::copy(rows[slot].v, rows[slot].v + kNumBufferFeatures,
              row + BufferOffset(slot, static_cast<BufferFeature>(0)));
}

// Points from the innermost level (one execution of the store) out to the
// whole nest: x = log2(ops + 1), y = ops / unique bytes of all buffers, with
// ops = TotalOps per execution times the trips of the loops that run. The
// curve is sampled at x = x_max * (i + 1) / 10, linearly interpolated between
// neighbouring points (from the origin before the first); zeros when the
// store does no arithmetic.
void WriteArithmeticIntensity(const StoreInput& in, const OpCounts& ops, double* row) {
  const double per_exec = TotalOps(ops);
  if (per_exec <= 0) return;
  const StoreAccesses& acc = in.access();
  const int n = acc.num_loops();
  std::vector<double> xs, ys;
  for (int level = n; level >= 0; --level) {
    double f = per_exec * Trips(acc.extents, level, n);
    double bytes = FootprintBytes(acc, level);
    xs.push_back(std::log2(f + 1));
    ys.push_back(bytes > 0 ? f / bytes : 0);
  }
  size_t k = 0;
  for (int i = 0; i < kArithSamples; ++i) {
    double x = xs.back() * (i + 1) / kArithSamples;
    while (k + 1 < xs.size() && xs[k] < x - 1e-9) ++k;
    double x0 = k == 0 ? 0 : xs[k - 1], y0 = k == 0 ? 0 : ys[k - 1];
    double y = xs[k] > x0 ? y0 + (ys[k] - y0) * (x - x0) / (xs[k] - x0) : ys[k];
    row[kF_arith_intensity_curve_0 + i] = y;
  }
}

}  // namespace tuneforge::search::features
