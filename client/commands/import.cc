#include "client/commands/import.h"

#include <fstream>
#include <iostream>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/cli_error.h"
#include "client/record_source.h"
#include "server/record_store/record_store.h"
#include "server/service/import_checks.h"

namespace tuneforge::cli {
namespace {

struct ImportArgs {
  std::string in_file;  // "-" = stdin
  RecordSourceArgs source;
  Output out;
};

// Every non-blank line, each checked here so that an error names its line
// in the file (the store would number the lines of its batch).
absl::StatusOr<std::vector<std::string>> ReadRecordLines(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file)
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read '", path, "'; give the .jsonl file 'tuneforge export' wrote"));
  }
  std::istream& in = path == "-" ? std::cin : file;
  std::vector<std::string> lines;
  std::string line;
  server::ImportChecker checker;
  for (int number = 1; std::getline(in, line); ++number) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    absl::StatusOr<server::Record> record = server::RecordFromJsonLine(line);
    absl::Status s = record.ok() ? checker.Check(*record) : record.status();
    if (!s.ok())
      return absl::InvalidArgumentError(absl::StrCat(path, " line ", number, ": ", s.message(),
                                                     "; nothing was imported"));
    lines.push_back(std::move(line));
  }
  return lines;
}

int RunImport(const ImportArgs& args) {
  absl::StatusOr<std::vector<std::string>> lines = ReadRecordLines(args.in_file);
  if (!lines.ok()) return Fail(args.out, lines.status());
  absl::StatusOr<std::unique_ptr<RecordSource>> target =
      RecordSource::Open(args.source, RecordSource::Mode::kWrite);
  if (!target.ok()) return Fail(args.out, target.status());
  absl::StatusOr<ImportCounts> counts = (*target)->Import(*lines);
  if (!counts.ok()) return Fail(args.out, counts.status());
  Json result{{"imported", counts->imported},
              {"duplicate", counts->duplicate},
              {"lines", lines->size()},
              {"into", (*target)->Describe()}};
  return Succeed(args.out, result,
                 absl::StrCat("imported ", counts->imported, " records into ", (*target)->Describe(),
                              " (", counts->duplicate, " already there)"));
}

}  // namespace

void AddImportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Store records exported as JSON lines");
  cmd->add_option("file", args->in_file, "the .jsonl file ('-' for stdin)")->required();
  AddRecordSourceFlags(cmd, &args->source);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunImport(*args); });
}

}  // namespace tuneforge::cli
