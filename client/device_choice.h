// Which device key a job is for when the user gave none: the one key the
// cluster's live workers share. Several keys, or none, is an error that
// lists what there is.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "client/api/connection.h"

namespace tuneforge::cli {

// `requested` when non-empty; else the single device key of the live
// workers. `flag` names the flag to suggest ("--device-key", "--target").
absl::StatusOr<std::string> ChooseDeviceKey(const client::Connection& connection,
                                            const std::string& requested, const std::string& flag);

}  // namespace tuneforge::cli
