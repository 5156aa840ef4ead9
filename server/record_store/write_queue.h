// The one writer thread and its group commit.
//
//   caller ──Run(work)──► queue ──► writer thread: takes everything queued,
//   (waits on its future)            BEGIN IMMEDIATE
//                                      SAVEPOINT w; work; RELEASE w   (per write;
//                                      a failing one: ROLLBACK TO w)
//                                    COMMIT ──► resolves every future
//
// Many callers writing at once thus share one transaction (and one WAL
// append), while a write that fails leaves the others of its batch intact.
// Only the writer thread touches the write connection.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

class WriteQueue {
 public:
  // A write: SQL on the write connection inside the batch's transaction. It
  // may run more than once (when the transaction is retried), so it must
  // reset whatever it reports before writing.
  using Work = std::function<absl::Status(sqlite::Connection&)>;

  struct Stats {
    int64_t transactions = 0;  // committed
    int64_t writes = 0;        // Work items that succeeded
  };

  explicit WriteQueue(std::unique_ptr<sqlite::Connection> connection);
  // Runs what is queued, then stops the thread.
  ~WriteQueue();
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // Queues `work` and waits until its transaction committed (OK) or it
  // failed (its error; nothing of it is stored).
  absl::Status Run(Work work);
  Stats stats() const;
  // Writes waiting for the next transaction (not those running now).
  size_t queued() const;

 private:
  struct Pending {
    Work work;
    std::promise<absl::Status> done;
  };

  void Loop();
  // One transaction over `batch`; sets each promise.
  void CommitBatch(std::vector<Pending*> batch);
  // Runs one write under a savepoint. Returns the write's own error (its
  // changes undone), or sets *abort when the transaction itself is lost.
  absl::Status RunOne(Pending& pending, absl::Status* abort);

  std::unique_ptr<sqlite::Connection> connection_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending*> queue_;  // owned by the callers waiting in Run
  bool stopping_ = false;
  Stats stats_;
  std::thread thread_;  // last: starts after the members above exist
};

}  // namespace tuneforge::server
