#include "server/service/call_log.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tuneforge::server {

void LogCall(absl::string_view method, const absl::Status& status, absl::Duration latency,
             absl::string_view peer) {
  std::string line = absl::StrFormat("tuneforge-server: %s %s %.2f ms %s", std::string(method),
                                     absl::StatusCodeToString(status.code()),
                                     absl::ToDoubleMilliseconds(latency), std::string(peer));
  if (!status.ok()) {
    constexpr size_t kShown = 300;
    absl::string_view message(status.message().data(), status.message().size());
    absl::StrAppend(&line, ": ", message.substr(0, kShown), message.size() > kShown ? "..." : "");
  }
  line += '\n';
  // One fwrite per line: stdio locks the stream for the call.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace tuneforge::server
