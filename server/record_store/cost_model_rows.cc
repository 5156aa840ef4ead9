#include "server/record_store/cost_model_rows.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::server {

absl::Status CheckCostModel(const std::string& device_key, const std::string& kind, const std::string& bytes,
                            int64_t trained_on_records) {
  if (device_key.empty())
    return absl::InvalidArgumentError("cost model: the device key is empty; a model is saved per device");
  const std::string where = absl::StrCat("cost model of device '", device_key, "': ");
  if (kind.empty()) return absl::InvalidArgumentError(where + "the kind is empty; pass CostModel::kind()");
  if (bytes.empty())
    return absl::InvalidArgumentError(where + "the bytes are empty; pass what CostModel::Serialize() returned");
  if (trained_on_records < 0)
    return absl::InvalidArgumentError(
        absl::StrCat(where, "trained_on_records is ", trained_on_records, "; it counts records, so >= 0"));
  return absl::OkStatus();
}

absl::Status UpsertCostModel(sqlite::Connection& db, const std::string& device_key, const std::string& kind,
                             const std::string& bytes, int64_t trained_on_records, int64_t now_ms) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "INSERT INTO cost_models (device_key, kind, bytes, trained_on_records, updated_unix_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (device_key) DO UPDATE SET kind = excluded.kind, "
      "bytes = excluded.bytes, trained_on_records = excluded.trained_on_records, "
      "updated_unix_ms = excluded.updated_unix_ms");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device_key).BindText(2, kind).BindBlob(3, bytes).Bind(4, trained_on_records).Bind(5, now_ms);
  return stmt->Run();
}

absl::StatusOr<std::optional<StoredCostModel>> ReadCostModel(sqlite::Connection& db,
                                                             const std::string& device_key) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "SELECT kind, bytes, trained_on_records, updated_unix_ms FROM cost_models WHERE device_key = ?1");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device_key);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<StoredCostModel>();
  StoredCostModel model;
  model.device_key = device_key;
  model.kind = stmt->Text(0);
  model.bytes = stmt->Blob(1);
  model.trained_on_records = stmt->Int(2);
  model.updated_unix_ms = stmt->Int(3);
  return std::optional<StoredCostModel>(std::move(model));
}

absl::Status CheckLearnedSearchState(const std::string& device_key, const std::string& bytes) {
  if (device_key.empty())
    return absl::InvalidArgumentError("learned search state: the device key is empty; it is saved per device");
  if (bytes.empty())
    return absl::InvalidArgumentError(absl::StrCat("learned search state of device '", device_key,
                                                   "': the bytes are empty; pass LearnedSearchState::Serialize()"));
  return absl::OkStatus();
}

absl::Status UpsertLearnedSearchState(sqlite::Connection& db, const std::string& device_key, const std::string& bytes,
                                      int64_t now_ms) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "INSERT INTO learned_search_states (device_key, bytes, updated_unix_ms) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (device_key) DO UPDATE SET bytes = excluded.bytes, updated_unix_ms = excluded.updated_unix_ms");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device_key).BindBlob(2, bytes).Bind(3, now_ms);
  return stmt->Run();
}

absl::StatusOr<std::optional<std::string>> ReadLearnedSearchState(sqlite::Connection& db,
                                                                 const std::string& device_key) {
  absl::StatusOr<sqlite::Statement> stmt =
      db.Prepare("SELECT bytes FROM learned_search_states WHERE device_key = ?1");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device_key);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(stmt->Blob(0));
}

std::string TrainingRecordsSql() {
  return "SELECT id, workload_key, workload, schedule_json, error_kind, median_seconds, created_unix_ms "
         "FROM records WHERE device_key = ?1 ORDER BY id DESC LIMIT ?2";
}

absl::StatusOr<std::vector<TrainingRecord>> ReadTrainingRecords(sqlite::Connection& db,
                                                                const std::string& device_key, int limit) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(TrainingRecordsSql());
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device_key).Bind(2, static_cast<int64_t>(limit > 0 ? limit : -1));  // LIMIT -1: no limit
  std::vector<TrainingRecord> records;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return records;
    TrainingRecord record;
    record.id = stmt->Int(0);
    record.workload_key = stmt->Text(1);
    record.workload = stmt->Text(2);
    record.schedule_json = stmt->Text(3);
    // A kind this build does not name is not a correct measurement.
    record.error_kind =
        measure::ParseErrorKind(stmt->Text(4)).value_or(measure::MeasureErrorKind::kRunnerError);
    record.median_seconds = stmt->Real(5);
    record.created_unix_ms = stmt->Int(6);
    records.push_back(std::move(record));
  }
}

}  // namespace tuneforge::server
