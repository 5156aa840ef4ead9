// A cost model that knows nothing: every score is uniform in [0, 1). The
// baseline that shows what learning adds, and a stand-in for tests. The
// scores come from one generator seeded by `seed`, so a run is repeatable
// when the calls come in the same order.
#include <algorithm>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "search/cost_model/cost_model.h"
#include "search/cost_model/model_blob.h"

namespace tuneforge::search {
namespace {

constexpr const char* kRandomModelKind = "random";

class RandomModel final : public CostModel {
 public:
  explicit RandomModel(uint64_t seed) : seed_(seed), rng_(seed) {}

  absl::Status Update(const std::vector<const ProgramFeatures*>& programs,
                      const std::vector<float>& labels) override {
    if (programs.size() != labels.size())
      return absl::InvalidArgumentError(absl::StrCat("cost model update: ", programs.size(), " programs but ",
                                                     labels.size(), " labels; pass one label per program"));
    std::lock_guard<std::mutex> lock(mu_);
    trained_ = true;
    return absl::OkStatus();
  }

  std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const override {
    return Draw(programs.size());
  }

  std::vector<float> PredictStores(const ProgramFeatures& program) const override {
    return Draw(static_cast<size_t>(std::max(program.num_stores, 0)));
  }

  bool trained() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return trained_;
  }

  std::string kind() const override { return kRandomModelKind; }

  // The payload is "<seed> <trained>"; loading restarts the generator.
  absl::StatusOr<std::string> Serialize() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return WriteCostModelBlob({kRandomModelKind, kFeatureSchemaVersion, /*num_features=*/0},
                              absl::StrCat(seed_, " ", trained_ ? 1 : 0));
  }

  absl::Status Deserialize(const std::string& bytes) override {
    absl::StatusOr<absl::string_view> payload = ReadCostModelPayload(bytes, kRandomModelKind, 0, nullptr);
    if (!payload.ok()) return payload.status();
    const std::vector<absl::string_view> fields = absl::StrSplit(*payload, ' ');
    uint64_t seed = 0;
    int trained = 0;
    if (fields.size() != 2 || !absl::SimpleAtoi(fields[0], &seed) || !absl::SimpleAtoi(fields[1], &trained))
      return absl::DataLossError(absl::StrCat("cost model bytes: the random model's payload '", *payload,
                                              "' is not '<seed> <trained>'; the model will be retrained "
                                              "from the records"));
    std::lock_guard<std::mutex> lock(mu_);
    seed_ = seed;
    rng_.seed(seed);
    trained_ = trained != 0;
    return absl::OkStatus();
  }

 private:
  std::vector<float> Draw(size_t n) const {
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::vector<float> scores(n);
    std::lock_guard<std::mutex> lock(mu_);
    for (float& score : scores) score = uniform(rng_);
    return scores;
  }

  mutable std::mutex mu_;  // guards everything below
  uint64_t seed_;
  mutable std::mt19937_64 rng_;
  bool trained_ = false;
};

}  // namespace

std::unique_ptr<CostModel> MakeRandomModel(uint64_t seed) { return std::make_unique<RandomModel>(seed); }

}  // namespace tuneforge::search
