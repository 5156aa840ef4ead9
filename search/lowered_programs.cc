#include "search/lowered_programs.h"

#include <string>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "common/lower/lower.h"
#include "common/lower/passes/unroll_tile_loops.h"
#include "common/lower/passes/vectorize.h"
#include "common/lower/printer.h"
#include "common/lower/stmt_functor.h"
#include "common/parallel_for.h"

namespace tuneforge::search {
namespace {

// Keeps a step hash (a state that does not lower) apart from code hashes.
constexpr uint64_t kUnloweredSalt = 0x5bd1e9955bd1e995ULL;

// `s` with its loop and let variables named v0, v1, ... in the order they
// are bound, in one walk (`names`: the renames so far). Names carry a
// schedule's history, not its code: a parallel loop fused over one more loop
// of extent 1 is named "n.0@k.0@n.1@k.1" instead of "n.0@k.0@n.1", the same
// loop.
lower::Stmt WithCanonicalNames(const lower::Stmt& s, te::VarMap& names, int& next) {
  if (!s) return s;
  auto rename = [&](const te::Var& var) {
    te::Var fresh = te::MakeVar(absl::StrCat("v", next++), var->dtype);
    names[var.get()] = te::Expr(fresh);
    return fresh;
  };
  if (const lower::For* f = s.as<lower::For>()) {
    te::Var var = rename(f->var);
    return lower::MakeFor(var, f->extent, f->kind, WithCanonicalNames(f->body, names, next));
  }
  if (const lower::LetStmt* let = s.as<lower::LetStmt>()) {
    te::Expr value = te::Substitute(let->value, names);
    te::Var var = rename(let->var);
    return lower::MakeLet(var, value, WithCanonicalNames(let->body, names, next));
  }
  lower::Stmt own = lower::MapOwnExprs(s, [&](const te::Expr& e) { return te::Substitute(e, names); });
  return lower::MapStmtChildren(own, [&](const lower::Stmt& child) { return WithCanonicalNames(child, names, next); });
}

}  // namespace

lower::LowerOptions ProgramIdentityOptions(bool gpu) {
  lower::LowerOptions options = lower::LowerOptions::ForTarget(gpu);
  // The builder's code is the nest lowered this far, run through passes
  // that read nothing else (vectorize, unroll, simplify, partition, drop
  // padded taps: pipeline.cc). The full lowering of a conv candidate cost 20
  // times as much, unrolled copies and all, and was a third of a round's
  // search.
  options.vectorize = false;
  options.unroll = false;
  options.prepack = false;  // not part of a program's identity (LoweredCodeHash)
  return options;
}

uint64_t LoweredCodeHash(const schedule::State& state, bool gpu) {
  return IdentifyProgram(state, gpu, /*check_scatter=*/false).code;
}

ProgramIdentity IdentifyProgram(const schedule::State& state, bool gpu, bool check_scatter) {
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(state, ProgramIdentityOptions(gpu));
  if (!func.ok()) return {state.Hash() ^ kUnloweredSalt, false};
  // The builder unrolls a reduction's small tile loops whatever the pragma
  // said (unroll_tile_loops.h): two programs that differ only there are one
  // code. Marking them costs nothing; copying is what the identity skips.
  func->body = lower::UnrollTileLoops(func->body);
  // Vectorizing is one of the passes the identity leaves out (it follows
  // from the text); run here, it shows what the stores become.
  return {absl::HashOf(IdentityText(*func)), check_scatter && lower::StoresScatter(lower::Vectorize(func->body))};
}

std::string IdentityText(const lower::LoweredFunc& func) {
  // The kernel alone: the prepack function runs once, untimed, and two
  // kernels that read the packed constants alike need the same values there.
  te::VarMap names;
  int next = 0;
  return lower::ToString(lower::LoweredFunc{func.name, func.args, WithCanonicalNames(func.body, names, next)});
}

bool LoweredPrograms::Add(const schedule::State& state) {
  const uint64_t steps = state.Hash();
  steps_.insert(steps);
  auto prepared = prepared_.find(steps);
  const ProgramIdentity identity = prepared != prepared_.end() ? prepared->second : Identify(state);
  if (identity.scatters) {
    ++scattering_;
    return false;
  }
  if (code_.insert(identity.code).second) return true;
  ++copies_;
  return false;
}

ProgramIdentity LoweredPrograms::Identify(const schedule::State& state) const {
  return IdentifyProgram(state, gpu_, skip_scattering_);
}

void LoweredPrograms::Prepare(const std::vector<const schedule::State*>& states, int threads) {
  std::vector<ProgramIdentity> identities(states.size());
  ParallelFor(states.size(), threads, [&](size_t i) { identities[i] = Identify(*states[i]); });
  prepared_.clear();
  for (size_t i = 0; i < states.size(); ++i) prepared_[states[i]->Hash()] = identities[i];
}

void LoweredPrograms::AddMeasured(const te::ComputeDagPtr& dag,
                                  const std::vector<std::vector<schedule::Step>>& schedules, int threads) {
  std::vector<const std::vector<schedule::Step>*> fresh;
  for (const auto& steps : schedules)
    if (steps_.insert(schedule::HashSteps(steps)).second) fresh.push_back(&steps);
  std::vector<uint64_t> hashes(fresh.size(), 0);
  std::vector<char> lowered(fresh.size(), 0);
  ParallelFor(fresh.size(), threads, [&](size_t i) {
    absl::StatusOr<schedule::State> s = schedule::State::Replay(dag, *fresh[i]);
    if (!s.ok()) return;  // a schedule of an older format: nothing to compare
    hashes[i] = LoweredCodeHash(*s, gpu_);
    lowered[i] = 1;
  });
  for (size_t i = 0; i < fresh.size(); ++i)
    if (lowered[i]) code_.insert(hashes[i]);
}

}  // namespace tuneforge::search
