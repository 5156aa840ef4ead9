// The gRPC services: each handler checks the token, validates the request
// at the edge (INVALID_ARGUMENT naming the field), calls the core and
// converts the result. One shape for every handler (handle_call.h); the
// checks of each request are in request_checks.h, the caps in limits.h.
#pragma once

#include <memory>
#include <string>

#include "proto/tuneforge.grpc.pb.h"
#include "server/core/dispatcher.h"
#include "server/core/job_manager.h"
#include "server/marshal/from_proto.h"
#include "server/marshal/to_proto.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct ServiceDeps {
  JobManager* jobs = nullptr;
  Dispatcher* dispatcher = nullptr;
  RecordStore* store = nullptr;
  std::string token;
  // One stderr line per call (method, status, latency): tuneforge-server --verbose.
  bool log_calls = false;
};

std::unique_ptr<v1::Jobs::Service> MakeJobsService(const ServiceDeps& deps);
std::unique_ptr<v1::Workers::Service> MakeWorkersService(const ServiceDeps& deps);
std::unique_ptr<v1::Records::Service> MakeRecordsService(const ServiceDeps& deps);

}  // namespace tuneforge::server
