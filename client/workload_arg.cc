#include "client/workload_arg.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"

namespace tuneforge::cli {

absl::StatusOr<ResolvedWorkload> ResolveWorkload(const WorkloadArgs& args) {
  ResolvedWorkload out;
  if (!args.schedule_file.empty()) {
    absl::StatusOr<schedule::Schedule> s = schedule::LoadScheduleFile(args.schedule_file);
    if (!s.ok()) return s.status();
    out.schedule = *std::move(s);
  }
  if (!args.spec.empty() && !args.def_file.empty())
    return absl::InvalidArgumentError(
        "give the workload either as OP:KEY=VALUE,... or with --def FILE, not both");
  absl::StatusOr<te::Workload> w;
  if (!args.def_file.empty()) {
    w = te::LoadDefinitionFile(args.def_file);
  } else if (!args.spec.empty()) {
    w = te::ParseWorkload(args.spec);
  } else if (out.schedule && !out.schedule->workload.empty()) {
    w = te::ParseWorkload(out.schedule->workload);
    if (!w.ok())
      return absl::InvalidArgumentError(absl::StrCat("the workload named in ", args.schedule_file,
                                                     " is not valid: ", w.status().message()));
  } else {
    return absl::InvalidArgumentError(
        "no workload: name one as OP:KEY=VALUE,... (e.g. matmul:M=1024,N=1024,K=1024) or give "
        "--def FILE; 'tuneforge show --ops' lists the ops");
  }
  if (!w.ok()) return w.status();
  out.workload = *std::move(w);
  if (out.schedule && !out.schedule->workload_key.empty() &&
      out.schedule->workload_key != out.workload.dag->workload_key())
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule ", args.schedule_file, " is for workload '", out.schedule->workload, "' (key ",
        out.schedule->workload_key, ") but the workload is '", out.workload.spec, "' (key ",
        out.workload.dag->workload_key(), "); use a schedule made for this workload"));
  return out;
}

absl::StatusOr<ApiWorkload> ResolveApiWorkload(const std::string& spec, const std::string& def_file) {
  std::string file = def_file;
  if (file.empty() && absl::StartsWith(spec, "def:")) file = spec.substr(4);
  ApiWorkload out;
  if (file.empty()) {
    absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
    if (!w.ok()) return w.status();
    out.parsed = *std::move(w);
    out.message.set_spec(spec);
    return out;
  }
  absl::StatusOr<te::Workload> w = te::LoadDefinitionFile(file);
  if (!w.ok()) return w.status();
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  if (!in)
    return absl::InvalidArgumentError(absl::StrCat("cannot read definition file '", file, "'"));
  out.parsed = *std::move(w);
  out.message.set_definition(text.str());
  out.message.set_name(std::filesystem::path(file).stem().string());
  return out;
}

}  // namespace tuneforge::cli
