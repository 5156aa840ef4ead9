#include "client/device_choice.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/api/workers_client.h"

namespace tuneforge::cli {

absl::StatusOr<std::string> ChooseDeviceKey(const client::Connection& connection,
                                            const std::string& requested, const std::string& flag) {
  if (!requested.empty()) return requested;
  client::WorkersClient workers(connection);
  absl::StatusOr<std::vector<v1::WorkerStatus>> list = workers.List();
  if (!list.ok()) return list.status();
  std::set<std::string> keys;
  for (const v1::WorkerStatus& w : *list)
    if (w.state() == "alive") keys.insert(w.device().device_key());
  if (keys.size() == 1) return *keys.begin();
  if (keys.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        "no worker is registered with ", connection.address(), ", so the device is unknown; give ",
        flag, " KEY (e.g. x86_64-avx512-2c) or start tuneforge-worker --server ", connection.address()));
  return absl::InvalidArgumentError(
      absl::StrCat("the workers have several device keys (", absl::StrJoin(keys, ", "),
                   "); choose one with ", flag, " KEY"));
}

}  // namespace tuneforge::cli
