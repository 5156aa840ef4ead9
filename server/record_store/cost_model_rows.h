// The SQL behind warm starts: the cost model saved per device
// (cost_models table, schema version 3), the learned search state beside it
// (learned_search_states, version 5) and the device's records as training
// data. Writes run on the writer thread (write_queue.h), reads on
// a read connection (read_pool.h), like store_writes.h / store_reads.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/record_store/record_store.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

// INVALID_ARGUMENT naming the field when the model cannot be stored.
absl::Status CheckCostModel(const std::string& device_key, const std::string& kind, const std::string& bytes,
                            int64_t trained_on_records);

absl::Status UpsertCostModel(sqlite::Connection& db, const std::string& device_key, const std::string& kind,
                             const std::string& bytes, int64_t trained_on_records, int64_t now_ms);

absl::StatusOr<std::optional<StoredCostModel>> ReadCostModel(sqlite::Connection& db, const std::string& device_key);

// The learned search state per device (learned_search_states, version 5).
absl::Status CheckLearnedSearchState(const std::string& device_key, const std::string& bytes);
absl::Status UpsertLearnedSearchState(sqlite::Connection& db, const std::string& device_key, const std::string& bytes,
                                      int64_t now_ms);
absl::StatusOr<std::optional<std::string>> ReadLearnedSearchState(sqlite::Connection& db,
                                                                 const std::string& device_key);

// The training-records query: ?1 device key, ?2 limit (-1: all). Answered
// from the records_by_device index; tests check the plan.
std::string TrainingRecordsSql();

absl::StatusOr<std::vector<TrainingRecord>> ReadTrainingRecords(sqlite::Connection& db,
                                                                const std::string& device_key, int limit);

}  // namespace tuneforge::server
