// Queued tasks per device key, one FIFO per job, served round-robin across
// jobs so that concurrent jobs share the workers of a device key fairly.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tuneforge::server {

class DeviceQueues {
 public:
  void Push(const std::string& device_key, const std::string& job_id, const std::string& task_id);
  // Pushes to the front: a task coming back from a lost lease goes first.
  void PushFront(const std::string& device_key, const std::string& job_id, const std::string& task_id);
  // Up to n task ids for the device key, taking one job at a time in turn.
  std::vector<std::string> Pop(const std::string& device_key, int n);
  // Pops the job's queued ids from the front of its queue while `take(id)`
  // holds, whoever's turn it is.
  std::vector<std::string> PopJobWhile(const std::string& device_key, const std::string& job_id,
                                       const std::function<bool(const std::string&)>& take);
  // Removes every queued task of the job; returns their ids.
  std::vector<std::string> DropJob(const std::string& job_id);
  bool Empty(const std::string& device_key) const;
  // Queued task ids for the device key (stale ids included).
  size_t Size(const std::string& device_key) const;

 private:
  struct Queue {
    std::map<std::string, std::deque<std::string>> by_job;
    std::deque<std::string> turn;  // jobs with queued tasks, next first
  };
  void Insert(const std::string& device_key, const std::string& job_id, const std::string& task_id,
              bool front);
  std::map<std::string, Queue> queues_;
};

}  // namespace tuneforge::server
