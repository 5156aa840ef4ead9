#include "server/record_store/read_pool.h"

namespace tuneforge::server {

ReadPool::Lease::~Lease() {
  if (connection_ != nullptr) pool_->Return(std::move(connection_));
}

absl::StatusOr<ReadPool::Lease> ReadPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<sqlite::Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
  }
  absl::StatusOr<std::unique_ptr<sqlite::Connection>> connection =
      sqlite::Connection::Open(path_, sqlite::Connection::Mode::kReadOnly, busy_timeout_ms_);
  if (!connection.ok()) return connection.status();
  // 16 MiB of pages: the upper levels of the indexes stay in memory.
  if (absl::Status s = (*connection)->Exec("PRAGMA cache_size = -16384"); !s.ok()) return s;
  return Lease(this, *std::move(connection));
}

void ReadPool::Return(std::unique_ptr<sqlite::Connection> connection) {
  // A reader that failed mid-transaction must not hand on an open snapshot.
  if (connection->InTransaction()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<int>(idle_.size()) < max_idle_) idle_.push_back(std::move(connection));
}

}  // namespace tuneforge::server
