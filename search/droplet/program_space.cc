#include "search/droplet/program_space.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"
#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {
namespace {

// `values` sorted with `own` in it; the index of `own`.
int InsertOwn(std::vector<int64_t>* values, int64_t own) {
  if (std::find(values->begin(), values->end(), own) == values->end()) values->push_back(own);
  std::sort(values->begin(), values->end());
  return static_cast<int>(std::find(values->begin(), values->end(), own) - values->begin());
}

Knob MakeKnob(KnobKind kind, size_t step, int level = 0) {
  Knob k;
  k.kind = kind;
  k.step = step;
  k.level = level;
  return k;
}

bool SamePlace(const schedule::ComputeAtStep& a, const schedule::ComputeAtStep& b) {
  return a.target_stage == b.target_stage && a.target_iter == b.target_iter;
}

}  // namespace

const char* KnobKindName(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplitLength: return "split_length";
    case KnobKind::kAutoUnroll: return "auto_unroll";
    case KnobKind::kParallelFuse: return "parallel_fuse";
    case KnobKind::kComputeAt: return "compute_at";
  }
  return "unknown";
}

ProgramSpace ProgramSpace::Of(const schedule::State& program, const HardwareParams& hw) {
  ProgramSpace space(program, hw);
  const std::vector<schedule::Step>& steps = program.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    std::vector<Knob> found;
    if (const auto* split = std::get_if<schedule::SplitStep>(&steps[i])) {
      absl::StatusOr<schedule::State> before = Prefix(program, i);
      if (!before.ok()) continue;
      const schedule::IterNode& node = before->stage(split->stage).iter_node(split->iter);
      const int64_t extent = node.extent;
      int64_t product = 1;
      for (int64_t l : split->lengths) product *= l;
      // An overrunning split (its innermost tile does not divide the loop)
      // also moves its outer levels over the divisors of its tile count.
      std::vector<int64_t> outer_values = Divisors(extent);
      const int64_t innermost = split->inner_to_outer ? split->lengths.back() : 0;
      if (innermost > 0 && extent % product != 0)
        for (int64_t d : Divisors((extent + innermost - 1) / innermost)) InsertOwn(&outer_values, d);
      for (size_t level = 0; level < split->lengths.size(); ++level) {
        Knob k = MakeKnob(KnobKind::kSplitLength, i, static_cast<int>(level));
        k.values = level + 1 < split->lengths.size() ? outer_values : Divisors(extent);
        k.origin = InsertOwn(&k.values, split->lengths[level]);
        found.push_back(std::move(k));
      }
      if (!found.empty())
        space.splits_.push_back(
            {i, extent, product > 0 && extent % product == 0, InnermostLimit(hw, steps, i, node)});
    } else if (const auto* pragma = std::get_if<schedule::PragmaStep>(&steps[i])) {
      Knob k = MakeKnob(KnobKind::kAutoUnroll, i);
      k.values = hw.auto_unroll_configs;
      k.origin = InsertOwn(&k.values, pragma->auto_unroll_max_step);
      found.push_back(std::move(k));
    } else if (FeedsParallelLoop(steps, i)) {
      const auto& fuse = std::get<schedule::FuseStep>(steps[i]);
      absl::StatusOr<schedule::State> before = Prefix(program, i);
      if (!before.ok()) continue;
      Knob k = MakeKnob(KnobKind::kParallelFuse, i);
      for (int n = 1; n <= MaxParallelFuse(*before, fuse.stage); ++n) k.values.push_back(n);
      k.origin = InsertOwn(&k.values, static_cast<int64_t>(fuse.iters.size()));
      found.push_back(std::move(k));
    } else if (const auto* at = std::get_if<schedule::ComputeAtStep>(&steps[i])) {
      if (SplitBefore(steps, i, at->stage)) continue;
      absl::StatusOr<schedule::State> before = Prefix(program, i);
      if (!before.ok()) continue;
      Knob k = MakeKnob(KnobKind::kComputeAt, i);
      k.places = ComputeAtChoices(*before, at->stage);
      auto own = std::find_if(k.places.begin(), k.places.end(),
                              [&](const schedule::ComputeAtStep& p) { return SamePlace(p, *at); });
      if (own == k.places.end()) continue;
      k.origin = static_cast<int>(own - k.places.begin());
      found.push_back(std::move(k));
    }
    for (Knob& k : found)
      if (k.size() >= 2) space.knobs_.push_back(std::move(k));
  }
  return space;
}

SpacePoint ProgramSpace::Origin() const {
  SpacePoint p;
  for (const Knob& k : knobs_) p.push_back(k.origin);
  return p;
}

int ProgramSpace::widest() const {
  int w = 0;
  for (const Knob& k : knobs_) w = std::max(w, k.size());
  return w;
}

absl::StatusOr<schedule::State> ProgramSpace::At(const SpacePoint& point) const {
  if (point.size() != knobs_.size())
    return absl::InvalidArgumentError(absl::StrCat("a point of this space has ", knobs_.size(),
                                                   " indices, not ", point.size()));
  std::vector<schedule::Step> steps = program_.steps();
  for (size_t i = 0; i < knobs_.size(); ++i) {
    const Knob& k = knobs_[i];
    if (point[i] < 0 || point[i] >= k.size())
      return absl::OutOfRangeError(absl::StrCat("knob ", i, " has no candidate ", point[i]));
    schedule::Step& step = steps[k.step];
    switch (k.kind) {
      case KnobKind::kSplitLength:
        std::get<schedule::SplitStep>(step).lengths[k.level] = k.values[point[i]];
        break;
      case KnobKind::kAutoUnroll:
        std::get<schedule::PragmaStep>(step).auto_unroll_max_step = k.values[point[i]];
        break;
      case KnobKind::kParallelFuse: {
        auto& fuse = std::get<schedule::FuseStep>(step);
        fuse.iters.clear();
        for (int n = 0; n < k.values[point[i]]; ++n) fuse.iters.push_back(n);
        break;
      }
      case KnobKind::kComputeAt:
        step = k.places[point[i]];
        break;
    }
  }
  for (const SplitLimits& limits : splits_) {
    const auto& split = std::get<schedule::SplitStep>(steps[limits.step]);
    int64_t product = 1;
    for (int64_t l : split.lengths) product *= l;
    const int64_t innermost = split.inner_to_outer ? split.lengths.back() : limits.extent / product;
    // An overrunning split may span the loop's tiles of `innermost`, past its end.
    const int64_t span = limits.divides || !split.inner_to_outer
                             ? limits.extent
                             : (limits.extent + innermost - 1) / innermost * innermost;
    if (product > span || (limits.divides && limits.extent % product != 0))
      return absl::OutOfRangeError("the split's lengths no longer fit its loop");
    if (innermost > limits.max_innermost)
      return absl::OutOfRangeError("the split's innermost length exceeds the target's limit");
  }
  return schedule::State::Replay(program_.original_dag(), steps);
}

std::vector<SpacePoint> Neighbours(const ProgramSpace& space, const SpacePoint& center, int step, int limit,
                                   std::mt19937_64& rng) {
  const std::vector<Knob>& knobs = space.knobs();
  const int n = static_cast<int>(knobs.size());
  std::vector<SpacePoint> out;
  std::set<SpacePoint> seen;
  auto add = [&](SpacePoint p) {
    if (static_cast<int>(out.size()) < limit && seen.insert(p).second) out.push_back(std::move(p));
  };
  auto in_range = [&](int knob, int index) { return index >= 0 && index < knobs[knob].size(); };
  for (int k = 0; k < n; ++k)
    for (int sign : {-1, 1}) {
      SpacePoint p = center;
      p[k] += sign * step;
      if (in_range(k, p[k])) add(std::move(p));
    }
  if (n < 2) return out;
  // Moves of several knobs at once: 3^n - 1 - 2n of them, sampled.
  std::vector<int> order(n);
  for (int attempt = 0; static_cast<int>(out.size()) < limit && attempt < 8 * limit; ++attempt) {
    const int moved = std::uniform_int_distribution<int>(2, n)(rng);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    SpacePoint p = center;
    bool ok = true;
    for (int j = 0; j < moved && ok; ++j) {
      const int k = order[j];
      const int sign = std::uniform_int_distribution<int>(0, 1)(rng) ? 1 : -1;
      if (in_range(k, p[k] + sign * step)) p[k] += sign * step;
      else if (in_range(k, p[k] - sign * step)) p[k] -= sign * step;
      else ok = false;
    }
    if (ok) add(std::move(p));
  }
  return out;
}

}  // namespace tuneforge::search
