// The space Droplet search descends in: every tunable choice one program's
// steps carry, each an index into that choice's ordered candidates. The
// program itself is one point (Origin); moving an index and replaying the
// steps gives its neighbours (At).
//
//   split length   each length of each SplitStep, over the divisors of the
//                  loop's extent (the product must still divide it when the
//                  program's did; the innermost stays within
//                  InnermostLimit, tile_lengths.h). Follow-splits and the
//                  vectorized length follow from these.
//   auto-unroll    each auto_unroll_max_step pragma, over hw.auto_unroll_configs
//   parallel fuse  how many outer loops each parallel loop fuses, 1..max
//   compute-at     where each stage placed by annotation is computed, over
//                  its places (ComputeAtChoices), outermost first
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "search/search_task.h"

namespace tuneforge::search {

enum class KnobKind { kSplitLength, kAutoUnroll, kParallelFuse, kComputeAt };
const char* KnobKindName(KnobKind kind);

struct Knob {
  KnobKind kind = KnobKind::kSplitLength;
  size_t step = 0;  // index of the step it sets
  int level = 0;    // kSplitLength: the index into SplitStep::lengths
  // The ordered candidates: a length, an unroll step or a number of fused
  // loops (values), or a place (places, kComputeAt).
  std::vector<int64_t> values;
  std::vector<schedule::ComputeAtStep> places;
  int origin = 0;  // the program's own candidate

  int size() const { return kind == KnobKind::kComputeAt ? static_cast<int>(places.size())
                                                         : static_cast<int>(values.size()); }
};

using SpacePoint = std::vector<int>;  // one candidate index per knob

class ProgramSpace {
 public:
  // The knobs of `program` with at least two candidates.
  static ProgramSpace Of(const schedule::State& program, const HardwareParams& hw);

  const std::vector<Knob>& knobs() const { return knobs_; }
  const schedule::State& program() const { return program_; }
  SpacePoint Origin() const;
  // The largest number of candidates of any knob (0 without knobs): a step
  // this long moves no knob anywhere.
  int widest() const;

  // The program at `point`, replayed from the workload; an error when an
  // index is out of range, a split breaks its constraints or the steps do
  // not replay.
  absl::StatusOr<schedule::State> At(const SpacePoint& point) const;

 private:
  ProgramSpace(schedule::State program, const HardwareParams& hw) : program_(std::move(program)), hw_(hw) {}

  struct SplitLimits {
    size_t step = 0;
    int64_t extent = 0;
    bool divides = false;  // the program's lengths divide the extent
    int64_t max_innermost = 0;  // InnermostLimit of the split's loop
  };

  schedule::State program_;
  HardwareParams hw_;
  std::vector<Knob> knobs_;
  std::vector<SplitLimits> splits_;  // of the split steps that have knobs
};

// Points `step` away from `center` along every combination of knobs (each
// knob -step, 0 or +step, not all 0), within range: all single-knob moves
// first, then random moves of several knobs until `limit` points in all.
std::vector<SpacePoint> Neighbours(const ProgramSpace& space, const SpacePoint& center, int step, int limit,
                                   std::mt19937_64& rng);

}  // namespace tuneforge::search
