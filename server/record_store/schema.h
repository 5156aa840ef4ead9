// The record store's schema: an ordered list of migrations, each a list of
// SQL steps that turns schema version N-1 into N. The version lives in
// `PRAGMA user_version`, and `PRAGMA application_id` marks the file as a
// tuneforge database, so another program's SQLite file is refused rather
// than written into. Opening applies every missing migration in one
// transaction; a file from a newer tuneforge is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

// The schema version this build writes.
inline constexpr int kSchemaVersion = 6;
// "TFdb": PRAGMA application_id of every tuneforge database.
inline constexpr int32_t kTuneforgeApplicationId = 0x54466462;

struct Migration {
  int to_version;      // the version the database has after it
  std::string title;   // named in errors
  std::vector<std::string> steps;  // SQL statements, in order
};

// Every migration, from version 0 (an empty file) up to kSchemaVersion.
const std::vector<Migration>& Migrations();

// Sets the connection's journal mode (WAL) and then brings the schema to
// kSchemaVersion. Errors name the file, the versions and the fix.
absl::Status PrepareSchema(sqlite::Connection& db);

}  // namespace tuneforge::server
