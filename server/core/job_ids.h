// Job ids and search seeds.
#pragma once

#include <cstdint>
#include <string>

#include "server/domain/job.h"

namespace tuneforge::server {

// "job-0123456789ab": random, safe to call from concurrent submits.
std::string NewJobId();
// The spec's seed, or one derived from the job id (reproducible per job).
uint64_t SearchSeed(const Job& job);

}  // namespace tuneforge::server
