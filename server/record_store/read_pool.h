// Read-only connections for any number of reader threads. A reader takes
// an idle connection (or opens one), uses it alone, and gives it back; up
// to max_idle stay open for the next reader, so a read usually costs no
// open and finds its statements already prepared.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

class ReadPool {
 public:
  ReadPool(std::string path, int busy_timeout_ms, int max_idle)
      : path_(std::move(path)), busy_timeout_ms_(busy_timeout_ms), max_idle_(max_idle) {}

  // A connection held by one reader; returns to the pool when destroyed.
  class Lease {
   public:
    Lease(ReadPool* pool, std::unique_ptr<sqlite::Connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    sqlite::Connection& operator*() const { return *connection_; }
    sqlite::Connection* operator->() const { return connection_.get(); }

   private:
    ReadPool* pool_;
    std::unique_ptr<sqlite::Connection> connection_;
  };

  absl::StatusOr<Lease> Acquire();

 private:
  void Return(std::unique_ptr<sqlite::Connection> connection);

  const std::string path_;
  const int busy_timeout_ms_;
  const int max_idle_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<sqlite::Connection>> idle_;
};

}  // namespace tuneforge::server
