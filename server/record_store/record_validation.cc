#include "server/record_store/record_validation.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/domain/workload_source.h"
#include "nlohmann/json.hpp"
#include "server/record_store/record_store.h"

namespace tuneforge::server {
namespace {

absl::Status FieldError(const char* field, const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat("field '", field, "' ", problem));
}

absl::Status NonEmpty(const char* field, const std::string& value) {
  if (value.empty()) return FieldError(field, "is empty; every record names it");
  return absl::OkStatus();
}

absl::Status FiniteNonNegative(const char* field, double value) {
  if (!std::isfinite(value) || value < 0)
    return FieldError(field, absl::StrCat("must be a finite number >= 0; got ", value));
  return absl::OkStatus();
}

absl::Status CorrectRecord(const Record& record) {
  if (record.median_seconds <= 0)
    return FieldError("median_seconds", "must be > 0 for a correct record (error_kind \"none\"); got 0");
  if (record.schedule_json.empty())
    return FieldError("schedule_json", "is empty; a correct record keeps the schedule it measured");
  // accept() checks the syntax without building the document (this runs
  // for every stored record).
  const std::string& text = record.schedule_json;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{' || !nlohmann::json::accept(text))
    return FieldError("schedule_json", "must be the text of a schedule JSON object ({\"workload\": ..., "
                                       "\"steps\": [...]})");
  return absl::OkStatus();
}

}  // namespace

absl::Status UnknownSchemaVersion(int64_t version) {
  return FieldError("schema_version", absl::StrCat("is ", version, ", but this tuneforge reads record schema "
                                                   "versions 1 to ", kRecordSchemaVersion,
                                                   version > kRecordSchemaVersion
                                                       ? ": the record comes from a newer tuneforge; upgrade"
                                                       : ": versions start at 1"));
}

absl::StatusOr<te::Workload> DefinitionOf(const Record& record) {
  constexpr absl::string_view kLabel = "def:";
  if (!absl::StartsWith(record.workload, kLabel))
    return FieldError("definition", absl::StrCat("is for records of a compute definition (workload \"def:NAME\"); "
                                                 "this record's workload is \"", record.workload, "\""));
  absl::StatusOr<te::Workload> parsed =
      measure::ParseWorkloadSource(WorkloadSource::Definition(record.definition, record.workload.substr(kLabel.size())));
  if (!parsed.ok())
    return FieldError("definition", absl::StrCat("does not parse: ", parsed.status().message()));
  if (parsed->dag->workload_key() != record.workload_key)
    return FieldError("definition", absl::StrCat("defines the workload key ", parsed->dag->workload_key(),
                                                 ", not the record's ", record.workload_key));
  return parsed;
}

absl::Status ValidateRecord(const Record& record) {
  if (record.schema_version < 0 || record.schema_version > kRecordSchemaVersion)
    return UnknownSchemaVersion(record.schema_version);
  if (record.id < 0) return FieldError("id", absl::StrCat("must be >= 0; got ", record.id));
  if (absl::Status s = NonEmpty("task_id", record.task_id); !s.ok()) return s;
  if (absl::Status s = NonEmpty("workload_key", record.workload_key); !s.ok()) return s;
  if (absl::Status s = NonEmpty("device_key", record.device_key); !s.ok()) return s;
  if (absl::Status s = FiniteNonNegative("median_seconds", record.median_seconds); !s.ok()) return s;
  for (double seconds : record.repeat_seconds) {
    if (absl::Status s = FiniteNonNegative("repeat_seconds", seconds); !s.ok()) return s;
  }
  if (absl::Status s = FiniteNonNegative("gflops", record.gflops); !s.ok()) return s;
  if (absl::Status s = FiniteNonNegative("compile_ms", record.compile_ms); !s.ok()) return s;
  if (record.created_unix_ms < 0)
    return FieldError("created_unix_ms", absl::StrCat("must be >= 0; got ", record.created_unix_ms));
  if (record.timings < 0)
    return FieldError("timings", absl::StrCat("must be >= 1 (0 means 1); got ", record.timings));
  if (record.compared_at_unix_ms < 0)
    return FieldError("compared_at_unix_ms", absl::StrCat("must be >= 0 (0: never compared); got ",
                                                          record.compared_at_unix_ms));
  if (record.ok()) return CorrectRecord(record);
  return absl::OkStatus();
}

}  // namespace tuneforge::server
