#include "client/record_source.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "client/api/records_client.h"
#include "server/marshal/to_proto.h"
#include "server/record_store/record_store.h"
#include "worker/agent/device_key.h"

namespace tuneforge::cli {
namespace {

class DatabaseSource : public RecordSource {
 public:
  DatabaseSource(std::string path, std::unique_ptr<server::RecordStore> store)
      : path_(std::move(path)), store_(std::move(store)) {}

  absl::StatusOr<std::optional<v1::Record>> Best(const std::string& workload_key,
                                                 const std::string& device_key) override {
    absl::StatusOr<std::optional<server::Record>> best = store_->Best(workload_key, device_key);
    if (!best.ok()) return best.status();
    if (!*best) return std::optional<v1::Record>();
    return std::optional<v1::Record>(server::ToProto(**best));
  }

  absl::StatusOr<int64_t> Export(const std::string& workload_key, const std::string& device_key,
                                 const std::function<void(const std::string&)>& line) override {
    server::RecordFilter filter;
    filter.workload_key = workload_key;
    filter.device_key = device_key;
    filter.limit = 0;  // every record
    int64_t count = 0;
    absl::Status s = store_->Export(filter, [&](const std::string& l) {
      line(l);
      ++count;
      return true;
    });
    if (!s.ok()) return s;
    return count;
  }

  absl::StatusOr<ImportCounts> Import(const std::vector<std::string>& lines) override {
    absl::StatusOr<server::AddOutcome> outcome = store_->Import(lines);
    if (!outcome.ok()) return outcome.status();
    return ImportCounts{outcome->accepted, outcome->duplicate};
  }

  std::string Describe() const override { return path_; }

 private:
  std::string path_;
  std::unique_ptr<server::RecordStore> store_;
};

class ServerSource : public RecordSource {
 public:
  explicit ServerSource(client::Connection connection)
      : address_(connection.address()), records_(std::move(connection)) {}

  absl::StatusOr<std::optional<v1::Record>> Best(const std::string& workload_key,
                                                 const std::string& device_key) override {
    return records_.Best(workload_key, device_key);
  }

  absl::StatusOr<int64_t> Export(const std::string& workload_key, const std::string& device_key,
                                 const std::function<void(const std::string&)>& line) override {
    v1::ExportRecordsRequest request;
    request.set_workload_key(workload_key);
    request.set_device_key(device_key);
    return records_.Export(request, line);
  }

  absl::StatusOr<ImportCounts> Import(const std::vector<std::string>& lines) override {
    absl::StatusOr<v1::ImportRecordsResponse> response = records_.Import(lines);
    if (!response.ok()) return response.status();
    return ImportCounts{response->imported(), response->duplicate()};
  }

  std::string Describe() const override { return "server " + address_; }

 private:
  std::string address_;
  client::RecordsClient records_;
};

}  // namespace

void AddRecordSourceFlags(CLI::App* cmd, RecordSourceArgs* args) {
  cmd->add_option("--db", args->db,
                  absl::StrCat("record database file (default: ./", kDefaultDb, " unless --server)"));
  AddServerFlags(cmd, &args->server);
}

absl::StatusOr<std::unique_ptr<RecordSource>> RecordSource::Open(const RecordSourceArgs& args,
                                                                 Mode mode) {
  if (args.server.given()) {
    if (!args.db.empty())
      return absl::InvalidArgumentError(
          "give either --db FILE (a database here) or --server HOST:PORT, not both");
    absl::StatusOr<client::Connection> connection = Connect(args.server);
    if (!connection.ok()) return connection.status();
    return std::make_unique<ServerSource>(*std::move(connection));
  }
  std::string path = args.db.empty() ? kDefaultDb : args.db;
  std::error_code ec;
  if (mode == Mode::kRead && !std::filesystem::exists(path, ec))
    return absl::NotFoundError(absl::StrCat(
        "no record store at ", path, ": run 'tuneforge tune WORKLOAD' here first, or give --db FILE "
        "or --server HOST:PORT"));
  absl::StatusOr<std::unique_ptr<server::RecordStore>> store = server::RecordStore::Open(path);
  if (!store.ok()) return store.status();
  return std::make_unique<DatabaseSource>(path, *std::move(store));
}

absl::StatusOr<std::optional<v1::Record>> BestForDevice(RecordSource& source, const std::string& workload_key,
                                                        const std::string& device_key) {
  absl::StatusOr<std::optional<v1::Record>> best = source.Best(workload_key, device_key);
  if (!best.ok() || best->has_value() || device_key.empty()) return best;
  std::optional<std::string> legacy = worker::LegacyDeviceKey(device_key);
  if (!legacy) return best;
  return source.Best(workload_key, *legacy);
}

}  // namespace tuneforge::cli
