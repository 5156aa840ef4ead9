// What a record must satisfy before it is stored, wherever it comes from
// (a worker's report, an imported line): the keys that find it are set,
// numbers are finite and non-negative, a correct record has a time and a
// schedule, and its schema version is one this build reads.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/te/workload.h"
#include "server/domain/record.h"

namespace tuneforge::server {

// INVALID_ARGUMENT "field 'median_seconds' must be ..." (the caller adds
// which record). schema_version 0 is accepted (the store sets the current).
absl::Status ValidateRecord(const Record& record);

// The error for a schema version this build does not read.
absl::Status UnknownSchemaVersion(int64_t version);

// The workload a record's `definition` text defines, named as its label
// says ("def:NAME"), with the record's workload key. INVALID_ARGUMENT when
// the record is not of a compute definition, or the text does not parse or
// defines another workload.
absl::StatusOr<te::Workload> DefinitionOf(const Record& record);

}  // namespace tuneforge::server
