// A few entries kept on the least-recently-used rule: the per-thread memos
// of the search's replays (kept prefixes, shared rewrites, effective
// stages), where a workload has a handful of sketches and a lookup is a
// short scan.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tuneforge::schedule {

template <typename Entry, size_t kCapacity = 16>
class RecentlyUsed {
 public:
  // The first kept entry that `matches` accepts (now the most recent), or null.
  template <typename Matches>
  const Entry* Find(Matches matches) {
    for (Slot& s : slots_)
      if (matches(s.entry)) {
        s.last_use = ++clock_;
        return &s.entry;
      }
    return nullptr;
  }

  // Keeps `entry`, in place of the least recently used one when full.
  void Add(Entry entry) {
    if (slots_.size() < kCapacity) {
      slots_.push_back(Slot{std::move(entry), ++clock_});
      return;
    }
    Slot& oldest = *std::min_element(slots_.begin(), slots_.end(),
                                     [](const Slot& a, const Slot& b) { return a.last_use < b.last_use; });
    oldest = Slot{std::move(entry), ++clock_};
  }

 private:
  struct Slot {
    Entry entry;
    uint64_t last_use = 0;
  };
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace tuneforge::schedule
