// Where `best`, `export`, `import` and `measure --best` find records: a
// database file opened here (no server needed), or a server. One interface,
// two implementations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "client/server_args.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::cli {

namespace v1 = ::tuneforge::v1;

// The embedded mode's database, in the current folder.
inline constexpr char kDefaultDb[] = "tuneforge.db";

struct RecordSourceArgs {
  std::string db;  // --db; default kDefaultDb when no --server
  ServerArgs server;
};

// --db and the server flags.
void AddRecordSourceFlags(CLI::App* cmd, RecordSourceArgs* args);

struct ImportCounts {
  int64_t imported = 0;
  int64_t duplicate = 0;
};

class RecordSource {
 public:
  // kRead: a database file must exist already (reading never creates one).
  enum class Mode { kRead, kWrite };
  // Errors: both --db and --server, a missing or unreadable database, a
  // server that cannot be connected to.
  static absl::StatusOr<std::unique_ptr<RecordSource>> Open(const RecordSourceArgs& args, Mode mode);
  virtual ~RecordSource() = default;

  virtual absl::StatusOr<std::optional<v1::Record>> Best(const std::string& workload_key,
                                                         const std::string& device_key) = 0;
  // Calls `line` per record (JSON line), oldest first; "" filters match all.
  virtual absl::StatusOr<int64_t> Export(const std::string& workload_key, const std::string& device_key,
                                         const std::function<void(const std::string&)>& line) = 0;
  virtual absl::StatusOr<ImportCounts> Import(const std::vector<std::string>& lines) = 0;
  // "tuneforge.db" or "server 127.0.0.1:7070", for messages.
  virtual std::string Describe() const = 0;
};

// source.Best(workload_key, device_key), and when it has none, the best
// under the key an older build gave the same device (its key without the
// CPU model, worker/agent/device_key.h).
absl::StatusOr<std::optional<v1::Record>> BestForDevice(RecordSource& source, const std::string& workload_key,
                                                        const std::string& device_key);

}  // namespace tuneforge::cli
