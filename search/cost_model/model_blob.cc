#include "search/cost_model/model_blob.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "search/features/features.h"

namespace tuneforge::search {
namespace {

constexpr absl::string_view kMagic = "tfcm";
constexpr int kBlobFormat = 1;  // of the header line itself
constexpr size_t kMaxHeaderBytes = 256;
constexpr absl::string_view kRetrain = "; the model will be retrained from the records";

absl::Status Unreadable(absl::string_view why) {
  return absl::DataLossError(absl::StrCat("cost model bytes: ", why, kRetrain));
}

absl::Status Mismatch(absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("cost model bytes: ", why, kRetrain));
}

struct Parsed {
  CostModelHeader header;
  absl::string_view payload;
};

absl::StatusOr<Parsed> Parse(absl::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Unreadable("not a tuneforge cost model (they do not start with 'tfcm')");
  const size_t newline = bytes.substr(0, kMaxHeaderBytes).find('\n');
  if (newline == absl::string_view::npos) return Unreadable("the 'tfcm' header line has no end");
  const std::vector<absl::string_view> fields = absl::StrSplit(bytes.substr(0, newline), ' ');
  int format = 0;
  Parsed parsed;
  uint64_t payload_bytes = 0;
  if (fields.size() != 6 || !absl::SimpleAtoi(fields[1], &format) ||
      !absl::SimpleAtoi(fields[3], &parsed.header.feature_schema_version) ||
      !absl::SimpleAtoi(fields[4], &parsed.header.num_features) || !absl::SimpleAtoi(fields[5], &payload_bytes) ||
      fields[2].empty() || parsed.header.num_features < 0)
    return Unreadable(absl::StrCat("the header line '", bytes.substr(0, newline),
                                   "' is not 'tfcm <format> <kind> <schema> <features> <bytes>'"));
  if (format != kBlobFormat)
    return Mismatch(absl::StrCat("header format ", format, ", this build reads format ", kBlobFormat));
  parsed.header.kind = std::string(fields[2]);
  parsed.payload = bytes.substr(newline + 1);
  if (parsed.payload.size() != payload_bytes)
    return Unreadable(absl::StrCat("the header announces ", payload_bytes, " payload bytes but ",
                                   parsed.payload.size(), " follow (cut short or padded)"));
  return parsed;
}

}  // namespace

std::string WriteCostModelBlob(const CostModelHeader& header, absl::string_view payload) {
  return absl::StrCat(kMagic, " ", kBlobFormat, " ", header.kind, " ", header.feature_schema_version, " ",
                      header.num_features, " ", payload.size(), "\n", payload);
}

absl::StatusOr<CostModelHeader> ReadCostModelHeader(absl::string_view bytes) {
  absl::StatusOr<Parsed> parsed = Parse(bytes);
  if (!parsed.ok()) return parsed.status();
  return parsed->header;
}

absl::StatusOr<absl::string_view> ReadCostModelPayload(absl::string_view bytes, absl::string_view expected_kind,
                                                      int expected_num_features, CostModelHeader* header) {
  absl::StatusOr<Parsed> parsed = Parse(bytes);
  if (!parsed.ok()) return parsed.status();
  const CostModelHeader& got = parsed->header;
  if (got.kind != expected_kind)
    return Mismatch(absl::StrCat("they hold a model of kind '", got.kind, "', expected kind '", expected_kind, "'"));
  if (got.feature_schema_version != kFeatureSchemaVersion)
    return Mismatch(absl::StrCat("saved with feature schema version ", got.feature_schema_version,
                                 ", but this build extracts feature schema version ", kFeatureSchemaVersion));
  if (expected_num_features > 0 && got.num_features > 0 && got.num_features != expected_num_features)
    return Mismatch(absl::StrCat("the saved model reads rows of ", got.num_features,
                                 " features, but this model's rows have ", expected_num_features, " features"));
  if (header != nullptr) *header = got;
  return parsed->payload;
}

}  // namespace tuneforge::search
