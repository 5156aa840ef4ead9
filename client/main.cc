// tuneforge: the command line of the tuning service (INTERFACE.md).
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "CLI/CLI.hpp"
#include "client/cli_error.h"
#include "client/commands/best.h"
#include "client/commands/cancel.h"
#include "client/commands/compile.h"
#include "client/commands/export.h"
#include "client/commands/import.h"
#include "client/commands/jobs.h"
#include "client/commands/measure.h"
#include "client/commands/run.h"
#include "client/commands/show.h"
#include "client/commands/status.h"
#include "client/commands/submit.h"
#include "client/commands/tune.h"
#include "client/commands/watch.h"
#include "client/commands/workers.h"
#include "grpc/support/log.h"

namespace {

// gRPC's own log lines (a refused connection, a server going away) would
// break the one-line errors; GRPC_VERBOSITY=... brings them back.
void DropGrpcLog(gpr_log_func_args*) {}

}  // namespace

int main(int argc, char** argv) {
  using namespace tuneforge::cli;
  if (std::getenv("GRPC_VERBOSITY") == nullptr) gpr_set_log_function(DropGrpcLog);
  CLI::App app{"tuneforge: tensor-program tuning (Ansor) as a service"};
  app.require_subcommand(1);
  int exit_code = 0;
  AddShowCommand(app, &exit_code);
  AddMeasureCommand(app, &exit_code);
  AddTuneCommand(app, &exit_code);
  AddBestCommand(app, &exit_code);
  AddSubmitCommand(app, &exit_code);
  AddStatusCommand(app, &exit_code);
  AddWatchCommand(app, &exit_code);
  AddCancelCommand(app, &exit_code);
  AddJobsCommand(app, &exit_code);
  AddWorkersCommand(app, &exit_code);
  AddExportCommand(app, &exit_code);
  AddImportCommand(app, &exit_code);
  AddRunCommand(app, &exit_code);
  AddCompileCommand(app, &exit_code);
  // CLI11 would say "A subcommand is required" for a misspelt command.
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    Output out;
    for (int i = 1; i < argc; ++i) out.json = out.json || std::strcmp(argv[i], "--json") == 0;
    return Fail(out, std::string("unknown command '") + argv[1] + "'; the commands are " + names +
                         " (run 'tuneforge --help')");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    Output out;
    for (int i = 1; i < argc; ++i) out.json = out.json || std::strcmp(argv[i], "--json") == 0;
    return Fail(out, std::string(e.what()) + "; run 'tuneforge --help' or 'tuneforge COMMAND --help'");
  } catch (const std::exception& e) {
    // The last line of defence: a bug must still end in one error line
    // (and one JSON object), not in an abort. The CLI fuzz test fails on it.
    Output out;
    for (int i = 1; i < argc; ++i) out.json = out.json || std::strcmp(argv[i], "--json") == 0;
    return Fail(out, std::string("internal error (a bug in tuneforge; please report it with the command): ") +
                         e.what());
  }
  return exit_code;
}
