// tuneforge: the command line of the tuning service (INTERFACE.md).
#include <cstring>
#include <iostream>

#include "CLI/CLI.hpp"
#include "client/cli_error.h"
#include "client/commands/measure.h"
#include "client/commands/show.h"

int main(int argc, char** argv) {
  using namespace tuneforge::cli;
  CLI::App app{"tuneforge: tensor-program tuning (Ansor) as a service"};
  app.require_subcommand(1);
  int exit_code = 0;
  AddShowCommand(app, &exit_code);
  AddMeasureCommand(app, &exit_code);
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
  }
  return exit_code;
}
