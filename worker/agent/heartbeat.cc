#include "worker/agent/heartbeat.h"

#include <algorithm>

namespace tuneforge::worker {

Heartbeater::Heartbeater(WorkerClient* client, std::function<std::string()> current_id,
                         std::function<void(const std::string& id)> on_unknown)
    : client_(client), current_id_(std::move(current_id)), on_unknown_(std::move(on_unknown)) {}

Heartbeater::~Heartbeater() { Stop(); }

void Heartbeater::Start() { thread_ = std::thread([this] { Loop(); }); }

void Heartbeater::SetInterval(absl::Duration interval) {
  absl::MutexLock lock(&mu_);
  interval_ = std::max(interval, absl::Milliseconds(10));
}

void Heartbeater::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void Heartbeater::Loop() {
  while (true) {
    absl::Duration interval;
    {
      absl::MutexLock lock(&mu_);
      interval = interval_;
      // Wakes early only to stop.
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval);
      if (stopping_) return;
    }
    const std::string id = current_id_();
    if (id.empty()) continue;
    // A beat that cannot reach the server is simply missed: the main loop
    // sees the outage in its own calls and reconnects.
    absl::StatusOr<v1::HeartbeatResponse> beat =
        client_->Heartbeat(id, std::max(interval, absl::Seconds(1)));
    if (beat.ok() && !beat->known()) on_unknown_(id);
  }
}

}  // namespace tuneforge::worker
