// Distinct elements and cache lines of a linear access over a box of loop
// iterations.
//
// The positions that run are taken in order of increasing |coefficient|.
// The set so far has `count` elements spanning `span` consecutive
// addresses; a loop (c, e) makes e copies shifted by c:
//   c >= span: the copies are disjoint: count *= e;
//   c <  span: they overlap: count = min(count * e, new span);
// and the span grows by c * (e - 1). Exact for tiles (rows of contiguous
// runs at increasing strides), an upper bound for irregular sets.
//
// Lines: the positions with |c| below a line fill runs inside lines; the
// run set of span s covers min(count, ceil(s / line)) lines (aligned
// start assumed); the larger strides then repeat those lines, in units
// of lines.
#include <algorithm>
#include <cmath>
#include <utility>

#include "search/features/access_pattern.h"

namespace tuneforge::search::features {
namespace {

struct Step {
  double coef;
  int64_t extent;
};

// The (|coef|, extent) of each position >= level that moves the access,
// smallest coefficient first. At most a few dozen entries.
std::vector<Step> Steps(const AccessIndex& index, const std::vector<int64_t>& extents, int level) {
  std::vector<Step> steps;
  for (size_t p = std::max(level, 0); p < index.coef.size(); ++p) {
    double c = std::fabs(index.coef[p]);
    if (c > 0 && extents[p] > 1) steps.push_back({c, extents[p]});
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.coef < b.coef; });
  return steps;
}

// Grows (count, span) by steps[begin, end).
void Grow(const std::vector<Step>& steps, size_t begin, size_t end, double scale, double* count,
          double* span) {
  for (size_t i = begin; i < end; ++i) {
    double c = steps[i].coef / scale;
    double e = static_cast<double>(steps[i].extent);
    double grown = *span + c * (e - 1);
    *count = c >= *span ? *count * e : std::min(*count * e, grown);
    *span = grown;
  }
}

}  // namespace

double DistinctElements(const AccessIndex& index, const std::vector<int64_t>& extents, int level) {
  std::vector<Step> steps = Steps(index, extents, level);
  double count = 1, span = 1;
  Grow(steps, 0, steps.size(), 1.0, &count, &span);
  return count;
}

double DistinctLines(const AccessIndex& index, const std::vector<int64_t>& extents, int level,
                     double elems_per_line) {
  std::vector<Step> steps = Steps(index, extents, level);
  size_t split = 0;
  while (split < steps.size() && steps[split].coef < elems_per_line) ++split;
  double count = 1, span = 1;
  Grow(steps, 0, split, 1.0, &count, &span);
  double lines = std::min(count, std::ceil(span / elems_per_line));
  double line_span = std::ceil(span / elems_per_line);
  Grow(steps, split, steps.size(), elems_per_line, &lines, &line_span);
  return lines;
}

double BufferElements(const BufferAccess& b, const std::vector<int64_t>& extents, int level) {
  double most = 0;
  for (const AccessIndex& index : b.indices) most = std::max(most, DistinctElements(index, extents, level));
  return most;
}

double BufferLines(const BufferAccess& b, const std::vector<int64_t>& extents, int level) {
  double per_line = std::max(1.0, kCacheLineBytes / b.elem_bytes);
  double most = 0;
  for (const AccessIndex& index : b.indices)
    most = std::max(most, DistinctLines(index, extents, level, per_line));
  return most;
}

}  // namespace tuneforge::search::features
