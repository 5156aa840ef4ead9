#include "search/sketch_generation.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "search/sketch_rules/sketch_rules.h"

namespace tuneforge::search {
namespace {

struct Partial {
  Sketch sketch;
  int stage = 0;  // next stage to visit; < 0: done
};

}  // namespace

absl::StatusOr<std::vector<Sketch>> GenerateSketches(
    const te::ComputeDagPtr& dag, const HardwareParams& hw,
    const std::vector<std::unique_ptr<SketchRule>>& rules, int max_sketches) {
  schedule::State init(dag);
  std::vector<Partial> now = {Partial{Sketch{init, {}}, init.num_stages() - 1}};
  std::vector<Sketch> out;
  absl::flat_hash_set<uint64_t> seen;
  // Every derivation moves the visit point back or inserts a stage it then
  // claims, so the number of passes is bounded; the cap guards a user rule
  // that loops.
  for (int pass = 0; !now.empty() && pass < 1000; ++pass) {
    std::vector<Partial> next;
    for (Partial& p : now) {
      if (p.stage < 0) {
        if (seen.insert(p.sketch.state.Hash()).second) out.push_back(std::move(p.sketch));
        continue;
      }
      const std::string stage_name = p.sketch.state.stage(p.stage).op->name;
      for (const auto& rule : rules) {
        RuleDecision d = rule->Check(p.sketch.state, p.stage, hw);
        if (d == RuleDecision::kSkip) continue;
        for (DerivedState& derived : rule->Apply(p.sketch.state, p.stage, hw)) {
          Sketch s{std::move(derived.state), p.sketch.derivation};
          if (s.state.steps().size() != p.sketch.state.steps().size()) {
            std::string entry = absl::StrCat(stage_name, ": ", rule->name());
            if (!derived.variant.empty()) absl::StrAppend(&entry, " (", derived.variant, ")");
            s.derivation.push_back(std::move(entry));
          }
          next.push_back(Partial{std::move(s), derived.next_stage});
        }
        if (d == RuleDecision::kApplyAndSkipRest) break;
      }
    }
    now = std::move(next);
    if (static_cast<int>(out.size()) >= max_sketches) break;
  }
  if (out.size() > static_cast<size_t>(max_sketches)) out.erase(out.begin() + max_sketches, out.end());
  if (out.empty())
    return absl::InternalError(
        "the sketch rules derived no sketch; a rule list needs a fallback such as the skip rule");
  return out;
}

absl::StatusOr<std::vector<Sketch>> GenerateCpuSketches(const te::ComputeDagPtr& dag,
                                                        const HardwareParams& hw) {
  return GenerateSketches(dag, hw, DefaultCpuSketchRules());
}

absl::StatusOr<std::vector<Sketch>> GenerateGpuSketches(const te::ComputeDagPtr& dag,
                                                        const HardwareParams& hw) {
  return GenerateSketches(dag, hw, DefaultGpuSketchRules());
}

absl::StatusOr<std::vector<Sketch>> GenerateDefaultSketches(const te::ComputeDagPtr& dag,
                                                            const HardwareParams& hw) {
  return hw.gpu ? GenerateGpuSketches(dag, hw) : GenerateCpuSketches(dag, hw);
}

}  // namespace tuneforge::search
