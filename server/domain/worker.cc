#include "server/domain/worker.h"

namespace tuneforge::server {

const char* WorkerStateName(WorkerState state) {
  switch (state) {
    case WorkerState::kAlive: return "alive";
    case WorkerState::kLost: return "lost";
  }
  return "lost";
}

}  // namespace tuneforge::server
