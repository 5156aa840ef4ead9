// The server's workloads are measure::WorkloadSource: a spec or a
// definition's text, the one type for it on both sides of the seam.
#pragma once

#include "measure/workload_source.h"

namespace tuneforge::server {

using measure::WorkloadSource;

}  // namespace tuneforge::server
