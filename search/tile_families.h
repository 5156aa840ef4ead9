// Tile families: programs whose split steps have the same lengths. They
// share their loop tiles (register tile, cache tile, parallel and reduction
// blocking) and differ only in pragmas, vector and parallel marks, how many
// loops are fused and where stages are attached.
//
// Ansor measures the best-ranked programs of each evolution. Once the cost
// model likes one tile family, the evolution's best are that family's
// variants, and a batch of 64 spent up to 19 of its measurements on one of
// them. 1,000-trial conv 3x3 tunings (C=K=256, 14x14) then ended in
// whichever family the first rounds found: 0.87x oneDNN on seed 2, where
// seed 1 found a family at 1.2x. A quota per family in each batch leaves the
// rest of the batch to the next-ranked families, so the model is told about
// other tiles while it is still young; variants over the quota are measured
// only when the batch would otherwise fall short (FamilyQuota). Off by
// default (SketchPolicyOptions::max_family_share): it did not win on a
// matmul seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/schedule/steps.h"

namespace tuneforge::search {

// The same value for programs with the same split steps (stage, loop and
// lengths), whatever their other steps: HashSteps of the split steps alone.
uint64_t TileFamilyOf(const std::vector<schedule::Step>& steps);

// How many of a batch's `want` picks one family may take: `max_share` of
// them, at least one; a share of 1 or more is no quota.
class FamilyQuota {
 public:
  FamilyQuota(int want, double max_share);

  bool Full(uint64_t family) const;
  void Taken(uint64_t family) { ++taken_[family]; }
  int cap() const { return cap_; }
  bool active() const { return cap_ > 0; }

 private:
  int cap_;  // 0: none
  absl::flat_hash_map<uint64_t, int> taken_;
};

// Takes candidates 0..count-1, ranked best first, through `take` (false: not
// taken, e.g. proposed before) until `want` are taken, at most the quota of
// each family (`family_of`); candidates over their family's quota are taken
// afterwards, best first, only while the batch is short. `prepare(begin,
// end)` is called on each stretch of candidates before any of it is taken
// (the policy lowers them in parallel there). Returns the number taken.
int TakeRankedWithQuota(size_t count, int want, double max_family_share,
                        const std::function<uint64_t(size_t)>& family_of,
                        const std::function<bool(size_t)>& take,
                        const std::function<void(size_t, size_t)>& prepare);

}  // namespace tuneforge::search
