// `tuneforge-bench --service`: record store and server benchmarks.
#pragma once

namespace tuneforge::bench {

struct ServiceBenchArgs {
  bool json = false;
  bool quick = false;  // smaller stores and jobs
};

// Prints the figures; non-zero when a benchmark failed (e.g. a lost record).
int RunServiceBenchmarks(const ServiceBenchArgs& args);

}  // namespace tuneforge::bench
