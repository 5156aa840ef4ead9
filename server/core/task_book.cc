#include "server/core/task_book.h"

#include "absl/strings/str_cat.h"
#include "server/core/service_constants.h"

namespace tuneforge::server {

int64_t LeaseBudgetMs(const std::vector<MeasureTask>& tasks, int lease_slack_ms) {
  double budget_ms = lease_slack_ms;
  for (const MeasureTask& t : tasks) {
    double timeout_s = t.measure.timeout_s > 0 ? t.measure.timeout_s : measure::MeasureOptions{}.timeout_s;
    budget_ms += kLeaseMsPerTimeoutS * timeout_s + kLeaseBuildMs;
  }
  return static_cast<int64_t>(budget_ms);
}

void TaskBook::Add(std::vector<TaskRow> rows, std::optional<int64_t> hold_until_ms) {
  for (TaskRow& row : rows) {
    std::string id = row.task_id;
    if (tasks_.count(id)) continue;
    if (hold_until_ms) {
      held_.emplace(*hold_until_ms, id);
    } else {
      queues_.Push(row.device_key, row.job_id, id);
    }
    ++outstanding_[row.job_id];
    tasks_.emplace(id, TaskEntry{std::move(row), 0, ""});
  }
}

bool TaskBook::ReleaseHeld(int64_t now_ms) {
  bool released = false;
  while (!held_.empty() && held_.begin()->first <= now_ms) {
    // A held task reported meanwhile (its old lease, late) is gone already.
    if (auto t = tasks_.find(held_.begin()->second); t != tasks_.end()) {
      queues_.Push(t->second.row.device_key, t->second.row.job_id, t->first);
      released = true;
    }
    held_.erase(held_.begin());
  }
  return released;
}

void TaskBook::DropJob(const std::string& job_id) {
  for (const std::string& id : queues_.DropJob(job_id)) tasks_.erase(id);
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->second.row.job_id != job_id) {
      ++it;
      continue;
    }
    if (auto l = leases_.find(it->second.lease_id); l != leases_.end()) l->second.task_ids.erase(it->first);
    it = tasks_.erase(it);
  }
  outstanding_.erase(job_id);
}

int TaskBook::Outstanding(const std::string& job_id) const {
  auto it = outstanding_.find(job_id);
  return it == outstanding_.end() ? 0 : it->second;
}

std::optional<LeaseGrant> TaskBook::Lease(const std::string& worker_id, const std::string& device_key, int n,
                                          int64_t now_ms) {
  std::vector<std::string> ids;
  std::set<std::string> picked;
  // A queued id may be stale (reported by a worker whose lease had expired
  // after the task went back to the queue) or queued twice.
  auto queued = [&](const std::string& id) -> const TaskEntry* {
    auto t = tasks_.find(id);
    return t != tasks_.end() && t->second.lease_id.empty() ? &t->second : nullptr;
  };
  auto pick = [&](const std::string& id) {
    if (queued(id) && picked.insert(id).second) ids.push_back(id);
  };
  for (const std::string& id : queues_.Pop(device_key, n)) pick(id);
  // A final comparison's tasks of one workload are compared by their
  // medians, so they are timed in one lease, on one worker at one moment:
  // the lease takes the rest of such a group, past n.
  for (size_t i = 0; i < ids.size(); ++i) {
    const TaskRow& group = tasks_.at(ids[i]).row;  // map entries stay put
    if (group.task.compared_at_unix_ms == 0) continue;
    for (const std::string& id : queues_.PopJobWhile(device_key, group.job_id, [&](const std::string& next) {
           const TaskEntry* t = queued(next);
           return !t || (t->row.workload_key == group.workload_key &&
                         t->row.task.compared_at_unix_ms == group.task.compared_at_unix_ms);
         }))
      pick(id);
  }
  if (ids.empty()) return std::nullopt;
  LeaseGrant grant;
  grant.lease_id = absl::StrCat("l", ++lease_counter_);
  LeaseEntry lease{worker_id, {}, 0, {}};
  for (const std::string& id : ids) {
    TaskEntry& t = tasks_.at(id);
    t.lease_id = grant.lease_id;
    lease.task_ids.insert(id);
    lease.order.push_back(id);
    grant.tasks.push_back(t.row.task);
  }
  grant.deadline_unix_ms = now_ms + LeaseBudgetMs(grant.tasks, lease_slack_ms_);
  lease.deadline_ms = grant.deadline_unix_ms;
  leases_.emplace(grant.lease_id, std::move(lease));
  return grant;
}

const TaskEntry* TaskBook::Find(const std::string& task_id) const {
  auto it = tasks_.find(task_id);
  return it == tasks_.end() ? nullptr : &it->second;
}

void TaskBook::Finish(const std::string& task_id) {
  auto t = tasks_.find(task_id);
  if (t == tasks_.end()) return;
  if (auto l = leases_.find(t->second.lease_id); l != leases_.end()) l->second.task_ids.erase(task_id);
  if (--outstanding_[t->second.row.job_id] <= 0) outstanding_.erase(t->second.row.job_id);
  tasks_.erase(t);
}

bool TaskBook::EndLeaseIfDone(const std::string& lease_id) {
  auto l = leases_.find(lease_id);
  if (l == leases_.end() || !l->second.task_ids.empty()) return false;
  leases_.erase(l);
  return true;
}

int TaskBook::ReturnLease(const std::string& lease_id, bool count_attempt, std::vector<LostTask>* lost) {
  auto l = leases_.find(lease_id);
  if (l == leases_.end()) return 0;
  int returned = 0;
  // Last first, so that the queue's front holds them in their lease's order.
  for (auto it = l->second.order.rbegin(); it != l->second.order.rend(); ++it) {
    const std::string& id = *it;
    if (!l->second.task_ids.count(id)) continue;  // finished
    auto t = tasks_.find(id);
    if (t == tasks_.end()) continue;
    t->second.lease_id.clear();
    if (count_attempt && ++t->second.attempts >= max_attempts_ && lost) {
      lost->push_back({t->second, l->second.worker_id});
      continue;
    }
    queues_.PushFront(t->second.row.device_key, t->second.row.job_id, id);
    ++returned;
  }
  leases_.erase(l);
  return returned;
}

std::vector<std::string> TaskBook::ExpiredLeases(int64_t now_ms) const {
  std::vector<std::string> expired;
  for (const auto& [id, l] : leases_)
    if (l.deadline_ms < now_ms) expired.push_back(id);
  return expired;
}

const LeaseEntry* TaskBook::FindLease(const std::string& lease_id) const {
  auto it = leases_.find(lease_id);
  return it == leases_.end() ? nullptr : &it->second;
}

int TaskBook::LeasedTasks(const std::set<std::string>& lease_ids) const {
  int n = 0;
  for (const std::string& l : lease_ids)
    if (auto it = leases_.find(l); it != leases_.end()) n += static_cast<int>(it->second.task_ids.size());
  return n;
}

}  // namespace tuneforge::server
