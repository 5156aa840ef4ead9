#include "server/core/worker_table.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::server {

WorkerTable::WorkerTable(int64_t lost_after_ms, int64_t lost_listed_ms)
    : lost_after_ms_(lost_after_ms), lost_listed_ms_(lost_listed_ms), rng_(std::random_device{}()) {}

std::string WorkerTable::Add(const DeviceInfo& device, int64_t now_ms) {
  std::string id =
      absl::StrCat("w", ++counter_, "-", std::uniform_int_distribution<int>(0x1000, 0xffff)(rng_));
  workers_[id] = WorkerEntry{device, now_ms, 0, 0, {}};
  return id;
}

WorkerEntry* WorkerTable::Find(const std::string& id) {
  auto it = workers_.find(id);
  return it == workers_.end() ? nullptr : &it->second;
}

const WorkerEntry* WorkerTable::Find(const std::string& id) const {
  auto it = workers_.find(id);
  return it == workers_.end() ? nullptr : &it->second;
}

void WorkerTable::Remove(const std::string& id) { workers_.erase(id); }

bool WorkerTable::Alive(const WorkerEntry& w, int64_t now_ms) const {
  return w.waiting > 0 || now_ms - w.last_heartbeat_ms <= lost_after_ms_;
}

int64_t WorkerTable::IdleAlive(const std::string& device_key, int64_t now_ms) const {
  int64_t n = 0;
  for (const auto& [id, w] : workers_)
    if (w.device.device_key == device_key && w.leases.empty() && Alive(w, now_ms)) ++n;
  return n;
}

bool WorkerTable::HasWorkerFor(const std::string& device_key) const {
  for (const auto& [id, w] : workers_)
    if (w.device.device_key == device_key) return true;
  return false;
}

std::vector<std::pair<std::string, WorkerEntry>> WorkerTable::TakeSilent(int64_t now_ms) {
  std::vector<std::pair<std::string, WorkerEntry>> gone;
  for (auto w = workers_.begin(); w != workers_.end();) {
    if (Alive(w->second, now_ms)) {
      ++w;
      continue;
    }
    WorkerStatus s{w->first, w->second.device, WorkerState::kLost, 0, w->second.last_heartbeat_ms,
                   w->second.measured};
    lost_[w->first] = Lost{std::move(s), now_ms};
    gone.emplace_back(w->first, std::move(w->second));
    w = workers_.erase(w);
  }
  return gone;
}

void WorkerTable::AgeOutLost(int64_t now_ms) {
  for (auto it = lost_.begin(); it != lost_.end();)
    it = now_ms - it->second.lost_ms > lost_listed_ms_ ? lost_.erase(it) : std::next(it);
}

std::vector<WorkerStatus> WorkerTable::List(
    int64_t now_ms, const std::function<int(const std::set<std::string>&)>& leased) const {
  std::vector<WorkerStatus> out;
  for (const auto& [id, w] : workers_)
    out.push_back({id, w.device, Alive(w, now_ms) ? WorkerState::kAlive : WorkerState::kLost, leased(w.leases),
                   w.last_heartbeat_ms, w.measured});
  for (const auto& [id, lost] : lost_)
    if (now_ms - lost.lost_ms <= lost_listed_ms_) out.push_back(lost.status);
  return out;
}

}  // namespace tuneforge::server
