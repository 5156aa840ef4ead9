// A thin layer over the SQLite C API for the record store: a connection with
// a cache of prepared statements, and a statement handle that resets itself.
// Every failure becomes a Status naming the database file, what was being
// done, the problem in words (disk full, locked, corrupt, not a database)
// and the fix. A Connection is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tuneforge::server::sqlite {

// The Status for SQLite result `code` (extended codes welcome) met while
// `doing` something on the database at `path`; `detail` is SQLite's own
// message, if any.
absl::Status ErrorStatus(const std::string& path, int code, const std::string& doing,
                         const std::string& detail);

class Connection;

// A prepared statement borrowed from its connection's cache. Binding errors
// are kept and returned by the next Step. Reset (and unbound) when it goes
// out of scope, so the cached statement holds no read snapshot open.
class Statement {
 public:
  Statement(Connection* connection, sqlite3_stmt* stmt) : connection_(connection), stmt_(stmt) {}
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in SQL (?1, ?2, ...).
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& BindText(int index, std::string_view text);
  Statement& BindBlob(int index, std::string_view bytes);
  Statement& BindNull(int index);

  // True when a row is ready, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Steps to the end of a statement that returns no rows.
  absl::Status Run();

  // Columns of the current row, numbered from 0.
  int64_t Int(int column) const;
  double Real(int column) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;
  bool IsNull(int column) const;

 private:
  void NoteBindResult(int rc);

  Connection* connection_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;  // the first failing bind's code
};

class Connection {
 public:
  enum class Mode { kReadWrite, kReadOnly };

  // Opens (kReadWrite: creates) the file and checks that it is a database
  // SQLite can read. Busy handling waits up to busy_timeout_ms.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::string& path, Mode mode,
                                                          int busy_timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs SQL text (one or more statements, no parameters, rows ignored).
  absl::Status Exec(const std::string& sql);
  // Runs one statement prepared once per connection (BEGIN, COMMIT, ...:
  // what runs for every transaction).
  absl::Status Run(const std::string& sql);
  // The statement for `sql`, prepared once per connection.
  absl::StatusOr<Statement> Prepare(const std::string& sql);
  // Runs a query returning one integer (PRAGMA user_version, COUNT(*)).
  absl::StatusOr<int64_t> QueryInt(const std::string& sql);
  // The text result of a query that returns one row (PRAGMA journal_mode=WAL).
  absl::StatusOr<std::string> QueryText(const std::string& sql);

  // Rows changed by the last INSERT/UPDATE/DELETE, and the last row id.
  int64_t Changes() const;
  int64_t LastInsertRowId() const;
  // False while a transaction is open (SQLite may end one itself after
  // some errors: disk full, I/O error).
  bool InTransaction() const;

  // The Status for `code` from this connection, with SQLite's message.
  absl::Status Error(int code, const std::string& doing) const;
  const std::string& path() const { return path_; }
  sqlite3* raw() const { return db_; }

 private:
  Connection(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  std::string path_;
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// BEGIN ... COMMIT for reads that must see one snapshot (several queries);
// rolls back when left without Commit.
class ReadTransaction {
 public:
  static absl::StatusOr<ReadTransaction> Begin(Connection& connection);
  ReadTransaction(ReadTransaction&& other) noexcept : connection_(other.connection_) {
    other.connection_ = nullptr;
  }
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;
  ~ReadTransaction();
  absl::Status Commit();

 private:
  explicit ReadTransaction(Connection* connection) : connection_(connection) {}
  Connection* connection_;
};

}  // namespace tuneforge::server::sqlite
