#include "graph/executor/memory_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace tuneforge::graph {
namespace {

struct Interval {
  ValueId root;
  int first, last;  // group indices: written by `first`, last read by `last`
  int64_t bytes;
  int64_t offset = -1;
};

}  // namespace

MemoryPlan PlanMemory(const Graph& g, const std::vector<Group>& groups) {
  MemoryPlan plan;
  plan.storage.resize(g.values.size());
  // A reshape's output is its input's storage.
  std::vector<ValueId>& root = plan.root;
  root.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) root[v] = static_cast<ValueId>(v);
  for (const Node& n : g.nodes)
    if (IsReshape(n.op)) root[n.output] = root[n.inputs[0]];

  absl::flat_hash_map<ValueId, size_t> interval_of;
  std::vector<Interval> intervals;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    ValueId out = groups[gi].output;
    interval_of[out] = intervals.size();
    const Value& v = g.values[out];
    intervals.push_back({out, static_cast<int>(gi), static_cast<int>(gi),
                         AlignToTensor(v.num_elements() * v.dtype.bytes())});
  }
  // Last reader of each arena value, through reshapes.
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int ni : groups[gi].nodes)
      for (ValueId in : g.nodes[ni].inputs) {
        auto it = interval_of.find(root[in]);
        if (it != interval_of.end()) intervals[it->second].last = std::max(intervals[it->second].last, static_cast<int>(gi));
      }
  for (ValueId out : g.outputs) {
    auto it = interval_of.find(root[out]);
    if (it != interval_of.end()) intervals[it->second].last = static_cast<int>(groups.size());
  }
  // Largest first, each at the lowest offset clear of every placed interval
  // that is alive at the same time.
  std::vector<size_t> order(intervals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return intervals[a].bytes > intervals[b].bytes; });
  std::vector<size_t> placed;
  for (size_t i : order) {
    Interval& cur = intervals[i];
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t p : placed) {
      const Interval& o = intervals[p];
      if (o.last < cur.first || cur.last < o.first) continue;
      busy.push_back({o.offset, o.offset + o.bytes});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + cur.bytes <= begin) break;
      offset = std::max(offset, end);
    }
    cur.offset = offset;
    placed.push_back(i);
    plan.arena_bytes = std::max(plan.arena_bytes, offset + cur.bytes);
    plan.naive_bytes += cur.bytes;
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    ValueId r = root[v];
    Storage& s = plan.storage[v];
    if (g.values[r].is_constant()) {
      s.kind = Storage::Kind::kConstant;
    } else if (auto it = interval_of.find(r); it != interval_of.end()) {
      s.kind = Storage::Kind::kArena;
      s.offset = intervals[it->second].offset;
    } else {
      auto in = std::find(g.inputs.begin(), g.inputs.end(), r);
      if (in != g.inputs.end()) {
        s.kind = Storage::Kind::kInput;
        s.input = static_cast<int>(in - g.inputs.begin());
      }
    }
  }
  return plan;
}

}  // namespace tuneforge::graph
