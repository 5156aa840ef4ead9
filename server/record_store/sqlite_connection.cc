#include "server/record_store/sqlite_connection.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace tuneforge::server::sqlite {
namespace {

struct Problem {
  absl::StatusCode code;
  const char* what;
  const char* fix;
};

// What a primary result code means for a user of the record store.
Problem Describe(int primary) {
  switch (primary) {
    case SQLITE_FULL:
      return {absl::StatusCode::kResourceExhausted, "the disk is full (or the database reached its size limit)",
              "free disk space (or raise the size limit) and retry"};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return {absl::StatusCode::kUnavailable,
              "the database is locked by another connection or process (another tuneforge-server on the "
              "same file?)",
              "stop the other process or point --db at another file, then retry"};
    case SQLITE_CORRUPT:
      return {absl::StatusCode::kDataLoss, "the database file is corrupt",
              "restore it from a backup, or move it away and start a new database"};
    case SQLITE_NOTADB:
      return {absl::StatusCode::kFailedPrecondition, "the file is not an SQLite database",
              "point --db at a tuneforge database or at a new file name"};
    case SQLITE_CANTOPEN:
      return {absl::StatusCode::kNotFound, "the file cannot be opened",
              "check that its directory exists and that you may read and write there"};
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return {absl::StatusCode::kPermissionDenied, "the database cannot be written",
              "check the permissions of the file, its -wal and -shm files and their directory"};
    case SQLITE_IOERR:
      return {absl::StatusCode::kUnavailable, "an I/O error occurred",
              "check the disk (dmesg) and that the file is on a local file system"};
    case SQLITE_NOMEM:
      return {absl::StatusCode::kResourceExhausted, "out of memory", "free memory and retry"};
    case SQLITE_CONSTRAINT:
      return {absl::StatusCode::kAlreadyExists, "a uniqueness or integrity constraint failed",
              "this is a bug in tuneforge if it was not caused by a hand-edited database; please report it"};
    case SQLITE_TOOBIG:
      return {absl::StatusCode::kInvalidArgument, "a value is too large to store", "store smaller values"};
    case SQLITE_PROTOCOL:
      return {absl::StatusCode::kUnavailable, "the WAL locking protocol failed",
              "keep the database on a local file system (not NFS) and retry"};
    default:
      return {absl::StatusCode::kInternal, "SQLite failed", "this is a bug in tuneforge; please report it"};
  }
}

}  // namespace

absl::Status ErrorStatus(const std::string& path, int code, const std::string& doing,
                         const std::string& detail) {
  const Problem problem = Describe(code & 0xff);
  std::string message = absl::StrCat("record store ", path, ": ", doing, ": ", problem.what);
  if (!detail.empty()) absl::StrAppend(&message, " (sqlite: ", detail, ", code ", code, ")");
  absl::StrAppend(&message, "; ", problem.fix);
  return absl::Status(problem.code, message);
}

// ---- Statement ----------------------------------------------------------------

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_), stmt_(other.stmt_), bind_error_(other.bind_error_) {
  other.stmt_ = nullptr;
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::NoteBindResult(int rc) {
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

Statement& Statement::Bind(int index, int64_t value) {
  NoteBindResult(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  NoteBindResult(sqlite3_bind_double(stmt_, index, value));
  return *this;
}
Statement& Statement::BindText(int index, std::string_view text) {
  NoteBindResult(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}
Statement& Statement::BindBlob(int index, std::string_view bytes) {
  // A zero-length blob, not NULL, for empty protos (data() may be null).
  NoteBindResult(sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(),
                                     SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::BindNull(int index) {
  NoteBindResult(sqlite3_bind_null(stmt_, index));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_error_ != 0)
    return connection_->Error(bind_error_, absl::StrCat("binding parameters of: ", sqlite3_sql(stmt_)));
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return connection_->Error(rc, absl::StrCat("running: ", sqlite3_sql(stmt_)));
}

absl::Status Statement::Run() {
  for (;;) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::Real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}
std::string Statement::Blob(int column) const {
  const void* bytes = sqlite3_column_blob(stmt_, column);
  if (bytes == nullptr) return "";
  return std::string(static_cast<const char*>(bytes), sqlite3_column_bytes(stmt_, column));
}
bool Statement::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

// ---- Connection ---------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path, Mode mode,
                                                             int busy_timeout_ms) {
  // NOMUTEX: each connection is used by one thread at a time (the writer
  // thread, or a reader holding it from the pool), so SQLite's per-call
  // mutex is not needed.
  int flags = SQLITE_OPEN_NOMUTEX;
  flags |= mode == Mode::kReadWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status =
        ErrorStatus(path, rc, "opening the database", db != nullptr ? sqlite3_errmsg(db) : "");
    sqlite3_close_v2(db);
    return status;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  std::unique_ptr<Connection> connection(new Connection(path, db));
  // Opening is lazy: reading the schema is what finds a file that is not a
  // database, or a corrupt one.
  absl::StatusOr<int64_t> tables = connection->QueryInt("SELECT COUNT(*) FROM sqlite_schema");
  if (!tables.ok()) return tables.status();
  return connection;
}

Connection::~Connection() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

absl::Status Connection::Error(int code, const std::string& doing) const {
  return ErrorStatus(path_, code, doing, sqlite3_errmsg(db_));
}

absl::Status Connection::Exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, absl::StrCat("running: ", sql));
  return absl::OkStatus();
}

absl::Status Connection::Run(const std::string& sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return stmt->Run();
}

absl::StatusOr<Statement> Connection::Prepare(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return Error(rc, absl::StrCat("preparing: ", sql));
    it = statements_.emplace(sql, stmt).first;
  }
  return Statement(this, it->second);
}

absl::StatusOr<int64_t> Connection::QueryInt(const std::string& sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError(absl::StrCat("record store ", path_, ": no row from: ", sql));
  return stmt->Int(0);
}

absl::StatusOr<std::string> Connection::QueryText(const std::string& sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError(absl::StrCat("record store ", path_, ": no row from: ", sql));
  return stmt->Text(0);
}

int64_t Connection::Changes() const { return sqlite3_changes64(db_); }
int64_t Connection::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
bool Connection::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

// ---- ReadTransaction ----------------------------------------------------------

absl::StatusOr<ReadTransaction> ReadTransaction::Begin(Connection& connection) {
  if (absl::Status s = connection.Exec("BEGIN"); !s.ok()) return s;
  return ReadTransaction(&connection);
}

ReadTransaction::~ReadTransaction() {
  if (connection_ != nullptr && connection_->InTransaction()) connection_->Exec("ROLLBACK").IgnoreError();
}

absl::Status ReadTransaction::Commit() {
  Connection* connection = std::exchange(connection_, nullptr);
  return connection->Exec("COMMIT");
}

}  // namespace tuneforge::server::sqlite
