// The programs a search has proposed, as the code they lower to. Different
// step lists often lower to the same code: an auto-unroll pragma or a
// compute-at location on a constant stage that the layout rewrite
// precomputes, a pragma of 64 where 16 already unrolls every loop, a vector
// mark on a loop of extent 1. Ansor tells programs apart by their steps, so
// its evolution, which ranks such copies alike, sent them to be measured
// again and again: 678 of a 1,000-trial matmul tuning's records and half of
// a conv tuning's were copies of programs measured before. A policy asks
// this set before it proposes a program, and skips a copy.
//
//   LoweredPrograms programs(hw.gpu);
//   if (programs.Add(state)) propose(state);  // else: that code was proposed
//
// Identity is the text of the kernel lowered with the target builder's
// options up to, not including, vectorizing and unrolling: the code the
// builder compiles follows from that text alone (the passes after it read
// nothing else), and it costs a twentieth of the full lowering of a conv
// candidate. Its variables are renamed by the order they are bound (names
// record how loops were split and fused, not what they do), and the
// prepack function is left out (it runs once, untimed).
//
// With `skip_scattering` (CPU programs), Add also refuses a program whose
// vector code would scatter what it computes (lower::StoresScatter): a loop
// vectorized along an axis strided in its stores. In a conv tuning they
// were one program in nine, at most 13 GFLOPS beside a best of 462, and a
// quarter of its compile time (most of its 1-4 s builds); none was among
// any workload's best programs. Checked on the same lowering, vectorized.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/te/compute_dag.h"

namespace tuneforge::search {

// What Add reads of a program: the hash of its identity text and, where
// asked, whether its vector code scatters.
struct ProgramIdentity {
  uint64_t code = 0;
  bool scatters = false;
};

class LoweredPrograms {
 public:
  explicit LoweredPrograms(bool gpu, bool skip_scattering = false)
      : gpu_(gpu), skip_scattering_(skip_scattering && !gpu) {}

  // Records `state`'s code; false when a program recorded before lowers to
  // the same code (a copy), or when it scatters and those are skipped. A
  // state that does not lower counts as new, by its steps: its build
  // reports the error.
  bool Add(const schedule::State& state);
  // Lowers `states` on `threads` threads (0: the machine's cores) ahead of
  // the Add calls that follow for them, which then find their code hashed:
  // a policy's ranked candidates, a batch at a time. Replaces the batch
  // prepared before.
  void Prepare(const std::vector<const schedule::State*>& states, int threads);
  // Records schedules measured before (a restored job), replayed and lowered
  // on `threads` threads (0: the machine's cores).
  void AddMeasured(const te::ComputeDagPtr& dag, const std::vector<std::vector<schedule::Step>>& schedules,
                   int threads);

  int64_t copies() const { return copies_; }          // states Add found to be copies
  int64_t scattering() const { return scattering_; }  // states Add refused as scattering
  size_t size() const { return code_.size(); }

 private:
  ProgramIdentity Identify(const schedule::State& state) const;

  bool gpu_;
  bool skip_scattering_;
  absl::flat_hash_set<uint64_t> code_;   // hashes of lowered code
  absl::flat_hash_set<uint64_t> steps_;  // State::Hash of every state recorded
  absl::flat_hash_map<uint64_t, ProgramIdentity> prepared_;  // State::Hash -> identity, by Prepare
  int64_t copies_ = 0;
  int64_t scattering_ = 0;
};

// The lowering options of that identity: the builder's for a CPU or GPU
// target, without vectorizing and unrolling.
lower::LowerOptions ProgramIdentityOptions(bool gpu);

// The hash Add compares: of the program's text lowered with
// ProgramIdentityOptions; the step hash (State::Hash) when it does not lower.
uint64_t LoweredCodeHash(const schedule::State& state, bool gpu);
// That hash and, with `check_scatter`, whether the same lowering, vectorized,
// stores by scatter (false for a state that does not lower).
ProgramIdentity IdentifyProgram(const schedule::State& state, bool gpu, bool check_scatter);
// What that hash reads of a lowered program: its kernel (not the prepack
// function) with loop and let variables named v0, v1, ... as they are bound.
std::string IdentityText(const lower::LoweredFunc& func);

}  // namespace tuneforge::search
