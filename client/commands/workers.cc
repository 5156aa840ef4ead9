#include "client/commands/workers.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/api/workers_client.h"
#include "client/cli_error.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct WorkersArgs {
  ServerArgs server;
  Output out;
};

const char* KindName(v1::DeviceKind kind) {
  switch (kind) {
    case v1::DEVICE_KIND_GPU: return "gpu";
    case v1::DEVICE_KIND_EMULATED: return "emulated";
    default: return "cpu";
  }
}

Json WorkerToJson(const v1::WorkerStatus& w) {
  return Json{{"id", w.id()},
              {"device_key", w.device().device_key()},
              {"kind", KindName(w.device().kind())},
              {"state", w.state()},
              {"leases", w.leases()},
              {"measured", w.measured()},
              {"last_heartbeat_unix_ms", w.last_heartbeat_unix_ms()},
              {"hostname", w.device().hostname()},
              {"cores", w.device().cores()},
              {"can_build", w.device().can_build()}};
}

int RunWorkers(const WorkersArgs& args) {
  absl::StatusOr<client::Connection> connection = Connect(args.server);
  if (!connection.ok()) return Fail(args.out, connection.status());
  client::WorkersClient workers(*connection);
  absl::StatusOr<std::vector<v1::WorkerStatus>> list = workers.List();
  if (!list.ok()) return Fail(args.out, list.status());
  Json array = Json::array();
  std::string text = absl::StrFormat("%-20s %-26s %-8s %-6s %6s %9s  %s\n", "id", "device_key", "kind",
                                     "state", "leases", "measured", "host");
  for (const v1::WorkerStatus& w : *list) {
    array.push_back(WorkerToJson(w));
    absl::StrAppend(&text, absl::StrFormat("%-20s %-26s %-8s %-6s %6d %9d  %s\n", w.id(),
                                           w.device().device_key(), KindName(w.device().kind()), w.state(),
                                           w.leases(), w.measured(), w.device().hostname()));
  }
  if (list->empty())
    text = absl::StrCat("no workers; start one with: tuneforge-worker --server ", args.server.address,
                        "\n");
  return Succeed(args.out, Json{{"workers", array}}, text);
}

}  // namespace

void AddWorkersCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<WorkersArgs>();
  CLI::App* cmd =
      app.add_subcommand("workers", "Registered workers: device keys, kinds (cpu, gpu, emulated), health, load");
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout: {\"workers\": [...]}");
  cmd->callback([args, exit_code] { *exit_code = RunWorkers(*args); });
}

}  // namespace tuneforge::cli
