// Heartbeats on their own thread at the server's interval, so the leases of
// a long build or measurement stay alive while the main loop is busy.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "worker/agent/worker_client.h"

namespace tuneforge::worker {

class Heartbeater {
 public:
  // `current_id` names the worker to beat for ("": not registered now, skip
  // the beat). `on_unknown(id)` runs (on the heartbeat thread) when the
  // server answers known=false for `id`.
  Heartbeater(WorkerClient* client, std::function<std::string()> current_id,
              std::function<void(const std::string& id)> on_unknown);
  ~Heartbeater();  // Stop()

  void Start();
  void SetInterval(absl::Duration interval);
  // Returns once the thread has ended (a beat in flight finishes first).
  void Stop();

 private:
  void Loop();

  WorkerClient* client_;
  std::function<std::string()> current_id_;
  std::function<void(const std::string&)> on_unknown_;
  absl::Mutex mu_;
  absl::Duration interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(2);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tuneforge::worker
