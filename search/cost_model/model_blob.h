// The bytes of a saved cost model: one text header line naming what the
// payload needs to be read back, then the payload (the model's own bytes).
//
//   tfcm 1 <kind> <feature schema version> <num_features> <payload bytes>\n<payload>
//
// A model saved by another build (another feature schema version, another
// row width) or of another kind is refused with an error naming both
// values; the caller then retrains from the records, which costs a few
// seconds, instead of ranking with a model that reads features wrongly.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace tuneforge::search {

struct CostModelHeader {
  std::string kind;                // "xgboost", "random"
  int feature_schema_version = 0;  // kFeatureSchemaVersion when written
  int num_features = 0;            // row width the model reads; 0: any (a model that ignores rows)
};

std::string WriteCostModelBlob(const CostModelHeader& header, absl::string_view payload);

// The header of `bytes` (to check a stored model against the current
// extractor's NumFeatures() before loading it). DATA_LOSS when the bytes are
// not a tuneforge cost model or are cut short.
absl::StatusOr<CostModelHeader> ReadCostModelHeader(absl::string_view bytes);

// The payload of `bytes`, after checking that it holds a model of
// `expected_kind` written with this build's kFeatureSchemaVersion, and, when
// both expected_num_features and the saved width are > 0, of that row width
// (FAILED_PRECONDITION naming both values otherwise). The view points into
// `bytes`.
absl::StatusOr<absl::string_view> ReadCostModelPayload(absl::string_view bytes, absl::string_view expected_kind,
                                                      int expected_num_features, CostModelHeader* header);

}  // namespace tuneforge::search
