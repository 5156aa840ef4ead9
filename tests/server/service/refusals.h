// Table-driven checks of refused requests: each case is a call, the status
// code it must get and a part of the message (the field path and what is
// wrong). After the table, the server must still serve a good call.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "tests/server/service/test_server.h"

namespace tuneforge::server::testing {

struct Refusal {
  std::string name;
  std::function<grpc::Status(Stubs&)> call;
  grpc::StatusCode code = grpc::StatusCode::INVALID_ARGUMENT;
  std::string message_part;
};

// gtest expectations for every case, then one for a good call.
void ExpectRefusals(TestServer& server, const std::vector<Refusal>& cases);

// `base` with `change` applied: the one field a case breaks.
template <typename Request>
Request Changed(Request base, const std::function<void(Request&)>& change) {
  change(base);
  return base;
}

}  // namespace tuneforge::server::testing
