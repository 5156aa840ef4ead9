#include "server/record_store/write_queue.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace tuneforge::server {

WriteQueue::WriteQueue(std::unique_ptr<sqlite::Connection> connection)
    : connection_(std::move(connection)), thread_([this] { Loop(); }) {}

WriteQueue::~WriteQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

absl::Status WriteQueue::Run(Work work) {
  Pending pending{std::move(work), {}};
  std::future<absl::Status> done = pending.done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
      return absl::FailedPreconditionError(
          absl::StrCat("record store ", connection_->path(), ": the store is closing; write nothing more"));
    queue_.push_back(&pending);
  }
  wake_.notify_one();
  return done.get();
}

WriteQueue::Stats WriteQueue::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

size_t WriteQueue::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void WriteQueue::Loop() {
  for (;;) {
    std::vector<Pending*> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued is done
      batch.assign(queue_.begin(), queue_.end());
      queue_.clear();
    }
    CommitBatch(std::move(batch));
  }
}

absl::Status WriteQueue::RunOne(Pending& pending, absl::Status* abort) {
  if (absl::Status s = connection_->Run("SAVEPOINT write"); !s.ok()) {
    *abort = s;
    return s;
  }
  absl::Status status = pending.work(*connection_);
  // Some errors (disk full, I/O) can make SQLite end the whole transaction.
  if (!connection_->InTransaction()) {
    *abort = status.ok() ? absl::InternalError("the transaction ended inside a write") : status;
    return *abort;
  }
  if (status.ok()) {
    if (absl::Status s = connection_->Run("RELEASE write"); !s.ok()) *abort = s;
    return *abort;
  }
  absl::Status undo = connection_->Run("ROLLBACK TO write");
  if (undo.ok()) undo = connection_->Run("RELEASE write");
  if (!undo.ok()) *abort = undo;
  return status;
}

void WriteQueue::CommitBatch(std::vector<Pending*> batch) {
  // Each pass either commits or drops (fails) at least one write, so this ends.
  while (!batch.empty()) {
    if (absl::Status begin = connection_->Run("BEGIN IMMEDIATE"); !begin.ok()) {
      for (Pending* p : batch) p->done.set_value(begin);
      return;
    }
    std::vector<Pending*> succeeded;
    std::vector<std::pair<Pending*, absl::Status>> failed;
    absl::Status abort;
    size_t i = 0;
    for (; i < batch.size(); ++i) {
      absl::Status status = RunOne(*batch[i], &abort);
      if (!abort.ok()) break;
      if (status.ok()) {
        succeeded.push_back(batch[i]);
      } else {
        failed.emplace_back(batch[i], std::move(status));
      }
    }
    for (auto& [p, status] : failed) p->done.set_value(status);

    if (!abort.ok()) {
      // The transaction is lost: the write that lost it fails; the others
      // that succeeded, and those not yet run, go again in a new one.
      if (connection_->InTransaction()) connection_->Exec("ROLLBACK").IgnoreError();
      batch[i]->done.set_value(abort);
      succeeded.insert(succeeded.end(), batch.begin() + static_cast<std::ptrdiff_t>(i) + 1, batch.end());
      batch = std::move(succeeded);
      continue;
    }

    absl::Status commit = connection_->Run("COMMIT");
    if (!commit.ok() && connection_->InTransaction()) connection_->Exec("ROLLBACK").IgnoreError();
    if (commit.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.transactions;
      stats_.writes += static_cast<int64_t>(succeeded.size());
    }
    for (Pending* p : succeeded) p->done.set_value(commit);
    return;
  }
}

}  // namespace tuneforge::server
