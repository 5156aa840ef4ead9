// The registered workers of a dispatcher: who is there, alive or silent,
// and the lost ones still listed for a while. Not thread-safe: the
// dispatcher calls it under its lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "server/domain/worker.h"

namespace tuneforge::server {

struct WorkerEntry {
  DeviceInfo device;
  int64_t last_heartbeat_ms = 0;
  int waiting = 0;  // Lease calls long-polling now: the worker is clearly there
  int64_t measured = 0;
  std::set<std::string> leases;
};

class WorkerTable {
 public:
  // A worker silent for longer than `lost_after_ms` is lost; a lost one is
  // listed for `lost_listed_ms` after that.
  WorkerTable(int64_t lost_after_ms, int64_t lost_listed_ms);

  // Returns the new worker's id ("w3-1a2b").
  std::string Add(const DeviceInfo& device, int64_t now_ms);
  WorkerEntry* Find(const std::string& id);
  const WorkerEntry* Find(const std::string& id) const;
  void Remove(const std::string& id);

  // Long-polling in Lease counts as a sign of life, like a heartbeat.
  bool Alive(const WorkerEntry& w, int64_t now_ms) const;
  // Alive workers of the key that hold no lease.
  int64_t IdleAlive(const std::string& device_key, int64_t now_ms) const;
  bool HasWorkerFor(const std::string& device_key) const;

  // Workers silent too long leave the table for the lost list; returned
  // (id, entry) so their leases can go back to the queue.
  std::vector<std::pair<std::string, WorkerEntry>> TakeSilent(int64_t now_ms);
  // Lost workers listed longer than lost_listed_ms leave the list.
  void AgeOutLost(int64_t now_ms);

  // Every worker and the lost ones still listed; `leased` counts a worker's
  // tasks from its lease ids.
  std::vector<WorkerStatus> List(int64_t now_ms,
                                     const std::function<int(const std::set<std::string>&)>& leased) const;

 private:
  struct Lost {
    WorkerStatus status;
    int64_t lost_ms = 0;
  };
  int64_t lost_after_ms_;
  int64_t lost_listed_ms_;
  std::mt19937 rng_;
  int64_t counter_ = 0;
  std::map<std::string, WorkerEntry> workers_;
  std::map<std::string, Lost> lost_;
};

}  // namespace tuneforge::server
