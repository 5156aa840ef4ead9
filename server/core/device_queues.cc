#include "server/core/device_queues.h"

#include <algorithm>

namespace tuneforge::server {

void DeviceQueues::Insert(const std::string& device_key, const std::string& job_id,
                          const std::string& task_id, bool front) {
  Queue& q = queues_[device_key];
  std::deque<std::string>& tasks = q.by_job[job_id];
  if (tasks.empty() && std::find(q.turn.begin(), q.turn.end(), job_id) == q.turn.end())
    q.turn.push_back(job_id);
  if (front) {
    tasks.push_front(task_id);
  } else {
    tasks.push_back(task_id);
  }
}

void DeviceQueues::Push(const std::string& device_key, const std::string& job_id,
                        const std::string& task_id) {
  Insert(device_key, job_id, task_id, false);
}

void DeviceQueues::PushFront(const std::string& device_key, const std::string& job_id,
                             const std::string& task_id) {
  Insert(device_key, job_id, task_id, true);
}

std::vector<std::string> DeviceQueues::Pop(const std::string& device_key, int n) {
  std::vector<std::string> out;
  auto it = queues_.find(device_key);
  if (it == queues_.end()) return out;
  Queue& q = it->second;
  while (static_cast<int>(out.size()) < n && !q.turn.empty()) {
    std::string job = q.turn.front();
    q.turn.pop_front();
    std::deque<std::string>& tasks = q.by_job[job];
    out.push_back(tasks.front());
    tasks.pop_front();
    if (tasks.empty()) {
      q.by_job.erase(job);
    } else {
      q.turn.push_back(job);  // its next task waits for the other jobs' turn
    }
  }
  return out;
}

std::vector<std::string> DeviceQueues::PopJobWhile(const std::string& device_key, const std::string& job_id,
                                                   const std::function<bool(const std::string&)>& take) {
  std::vector<std::string> out;
  auto it = queues_.find(device_key);
  if (it == queues_.end()) return out;
  Queue& q = it->second;
  auto tasks = q.by_job.find(job_id);
  if (tasks == q.by_job.end()) return out;
  while (!tasks->second.empty() && take(tasks->second.front())) {
    out.push_back(tasks->second.front());
    tasks->second.pop_front();
  }
  if (tasks->second.empty()) {
    q.by_job.erase(tasks);
    q.turn.erase(std::remove(q.turn.begin(), q.turn.end(), job_id), q.turn.end());
  }
  return out;
}

std::vector<std::string> DeviceQueues::DropJob(const std::string& job_id) {
  std::vector<std::string> dropped;
  for (auto& [key, q] : queues_) {
    auto it = q.by_job.find(job_id);
    if (it == q.by_job.end()) continue;
    dropped.insert(dropped.end(), it->second.begin(), it->second.end());
    q.by_job.erase(it);
    q.turn.erase(std::remove(q.turn.begin(), q.turn.end(), job_id), q.turn.end());
  }
  return dropped;
}

bool DeviceQueues::Empty(const std::string& device_key) const {
  auto it = queues_.find(device_key);
  return it == queues_.end() || it->second.turn.empty();
}

size_t DeviceQueues::Size(const std::string& device_key) const {
  auto it = queues_.find(device_key);
  if (it == queues_.end()) return 0;
  size_t n = 0;
  for (const auto& [job, ids] : it->second.by_job) n += ids.size();
  return n;
}

}  // namespace tuneforge::server
