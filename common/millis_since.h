// Milliseconds of wall time since `start`: how builds, compiles and runs
// time their phases.
#pragma once

#include <chrono>

namespace tuneforge {

inline double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace tuneforge
