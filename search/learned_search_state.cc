#include "search/learned_search_state.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tuneforge::search {
namespace {

constexpr absl::string_view kHeader = "tfls 1";
constexpr absl::string_view kMutationLine = "mutation ";
constexpr absl::string_view kBanditLine = "bandit ";

}  // namespace

MutationPredictor LearnedSearchState::mutation_predictor() const {
  std::lock_guard<std::mutex> lock(mu_);
  return predictor_;
}

void LearnedSearchState::LearnMutations(const std::vector<MutationOutcome>& outcomes) {
  std::lock_guard<std::mutex> lock(mu_);
  predictor_.Learn(outcomes);
}

std::optional<SketchBandit> LearnedSearchState::bandit(const std::string& workload_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bandits_.find(workload_key);
  if (it == bandits_.end()) return std::nullopt;
  return it->second;
}

void LearnedSearchState::SaveBandit(const std::string& workload_key, const SketchBandit& bandit) {
  std::lock_guard<std::mutex> lock(mu_);
  bandits_.insert_or_assign(workload_key, bandit);
}

bool LearnedSearchState::empty() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bandits_.empty() && predictor_.dimension() == 0;
}

std::string LearnedSearchState::Serialize() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = absl::StrCat(kHeader, "\n", kMutationLine, predictor_.Serialize(), "\n");
  for (const auto& [key, bandit] : bandits_) {
    // Keys are hashes; one with a space could not be read back.
    if (key.empty() || absl::StrContains(key, ' ') || absl::StrContains(key, '\n')) continue;
    absl::StrAppend(&out, kBanditLine, key, " ", bandit.Serialize(), "\n");
  }
  return out;
}

absl::Status LearnedSearchState::Load(absl::string_view bytes) {
  std::vector<absl::string_view> lines = absl::StrSplit(bytes, '\n', absl::SkipEmpty());
  if (lines.empty() || lines[0] != kHeader)
    return absl::DataLossError(absl::StrCat("learned search state: the bytes do not start with '", kHeader,
                                            "'; the state is learned again"));
  MutationPredictor predictor;
  absl::flat_hash_map<std::string, SketchBandit> bandits;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (absl::ConsumePrefix(&line, kMutationLine)) {
      absl::StatusOr<MutationPredictor> p = MutationPredictor::Parse(line);
      if (!p.ok()) return p.status();
      predictor = *std::move(p);
    } else if (absl::ConsumePrefix(&line, kBanditLine)) {
      std::pair<absl::string_view, absl::string_view> key_rest = absl::StrSplit(line, absl::MaxSplits(' ', 1));
      absl::StatusOr<SketchBandit> bandit = SketchBandit::Parse(key_rest.second);
      if (key_rest.first.empty() || !bandit.ok())
        return absl::DataLossError(absl::StrCat("learned search state, line ", i + 1, ": a bad bandit (",
                                                bandit.ok() ? "no workload key" : bandit.status().message(),
                                                "); the state is learned again"));
      bandits.insert_or_assign(std::string(key_rest.first), *std::move(bandit));
    } else {
      return absl::DataLossError(absl::StrCat("learned search state, line ", i + 1,
                                              ": neither 'mutation' nor 'bandit'; the state is learned again"));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  predictor_ = std::move(predictor);
  bandits_ = std::move(bandits);
  return absl::OkStatus();
}

}  // namespace tuneforge::search
