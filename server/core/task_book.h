// The dispatcher's tasks: queued (per device key, DeviceQueues), held back
// after a restart, leased, and the leases themselves with their deadlines.
// A task leaves the book when its record is stored or its job is dropped.
// Not thread-safe: the dispatcher calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "server/core/device_queues.h"
#include "server/domain/worker.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct TaskEntry {
  TaskRow row;
  int attempts = 0;      // leases that ended without a result
  std::string lease_id;  // "" while queued or held
};

struct LeaseEntry {
  std::string worker_id;
  std::set<std::string> task_ids;  // its unfinished tasks
  int64_t deadline_ms = 0;
  std::vector<std::string> order;  // all its tasks, in the order leased
};

// A task whose every lease ended without a result.
struct LostTask {
  TaskEntry task;
  std::string worker_id;  // of its last lease
};

// How long a lease of these tasks may take (service_constants.h): the
// slack plus each task's timeout-bounded runs and build.
int64_t LeaseBudgetMs(const std::vector<MeasureTask>& tasks, int lease_slack_ms);

class TaskBook {
 public:
  TaskBook(int max_attempts, int lease_slack_ms) : max_attempts_(max_attempts), lease_slack_ms_(lease_slack_ms) {}

  // New tasks go to the back of their queue; an id already in the book is
  // skipped. With `hold_until_ms` set, they wait until then (ReleaseHeld).
  void Add(std::vector<TaskRow> rows, std::optional<int64_t> hold_until_ms = std::nullopt);
  // Queues the held tasks whose time came; whether any did.
  bool ReleaseHeld(int64_t now_ms);
  // Forgets every task of the job, queued, held or leased.
  void DropJob(const std::string& job_id);
  int Outstanding(const std::string& job_id) const;
  bool HasQueued(const std::string& device_key) const { return !queues_.Empty(device_key); }
  // Queued ids (stale ones included): what a fair share divides.
  size_t Queued(const std::string& device_key) const { return queues_.Size(device_key); }

  // Leases up to n queued tasks of the key to the worker (and the rest of a
  // final comparison's group begun among them); nullopt when none.
  std::optional<LeaseGrant> Lease(const std::string& worker_id, const std::string& device_key, int n,
                                  int64_t now_ms);
  const TaskEntry* Find(const std::string& task_id) const;
  // The task has its record: it leaves the book (and its lease).
  void Finish(const std::string& task_id);
  // Ends the lease when all its tasks are finished; whether it did.
  bool EndLeaseIfDone(const std::string& lease_id);
  // Puts a lease's unfinished tasks back in front of their queues; with
  // `count_attempt`, a task out of attempts goes to `lost` instead. Returns
  // how many went back.
  int ReturnLease(const std::string& lease_id, bool count_attempt, std::vector<LostTask>* lost);
  std::vector<std::string> ExpiredLeases(int64_t now_ms) const;
  const LeaseEntry* FindLease(const std::string& lease_id) const;
  // Tasks held now under these leases.
  int LeasedTasks(const std::set<std::string>& lease_ids) const;

 private:
  int max_attempts_;
  int lease_slack_ms_;
  int64_t lease_counter_ = 0;
  std::map<std::string, TaskEntry> tasks_;           // queued, held or leased
  std::map<std::string, LeaseEntry> leases_;
  std::map<std::string, int> outstanding_;           // per job
  std::multimap<int64_t, std::string> held_;         // release time -> task id
  DeviceQueues queues_;
};

}  // namespace tuneforge::server
