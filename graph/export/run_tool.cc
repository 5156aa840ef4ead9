#include "graph/export/run_tool.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace tuneforge::graph {

absl::Status RunTool(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return absl::NotFoundError(absl::StrCat("cannot start '", argv[0], "' (", rc == ENOENT ? "not on PATH" : "error ",
                                            rc == ENOENT ? "" : std::to_string(rc),
                                            "); install a C++ compiler (Debian: g++) to link compiled models"));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  std::ifstream log(log_path);
  std::stringstream text;
  text << log.rdbuf();
  std::string out = text.str();
  if (out.size() > 2000) out = "..." + out.substr(out.size() - 2000);
  return absl::InternalError(absl::StrCat("'", absl::StrJoin(argv, " "), "' failed: ", out));
}

}  // namespace tuneforge::graph
