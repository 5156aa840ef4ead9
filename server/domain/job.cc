#include "server/domain/job.h"

namespace tuneforge::server {

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kUnspecified: return "unspecified";
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kDone: return "done";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "unspecified";
}

}  // namespace tuneforge::server
