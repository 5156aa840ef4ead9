#include "common/te/workload_forms.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tuneforge::te {

std::optional<Workload> WinogradFormOf(const Workload& w) {
  // The canonical spec ("conv2d:C=256,H=14,...") names every key that is
  // not at its default; an epilogue ("conv2d+bias+relu") carries over to the
  // form ("conv2d_winograd+bias+relu"), which reads and writes the same.
  if (w.op != "conv2d" && !w.op.starts_with("conv2d+")) return std::nullopt;
  const std::string epilogue = w.op.substr(std::string("conv2d").size());
  const size_t colon = w.spec.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::map<std::string, std::string> keys;
  for (const std::string& kv : std::vector<std::string>(absl::StrSplit(w.spec.substr(colon + 1), ','))) {
    std::vector<std::string> parts = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (parts.size() == 2) keys[parts[0]] = parts[1];
  }
  auto is = [&](const char* key, const char* value, bool absent_ok) {
    auto it = keys.find(key);
    return it == keys.end() ? absent_ok : it->second == value;
  };
  if (!is("R", "3", false) || !is("S", "3", false) || !is("stride", "1", true) || !is("dilation", "1", true) ||
      !is("groups", "1", true))
    return std::nullopt;
  std::string spec = absl::StrCat("conv2d_winograd", epilogue, ":N=", keys["N"], ",C=", keys["C"], ",H=", keys["H"],
                                  ",W=", keys["W"], ",K=", keys["K"], ",pad=", keys.count("pad") ? keys["pad"] : "0",
                                  ",tile=", kWinogradFormTile);
  if (keys.count("dtype")) absl::StrAppend(&spec, ",dtype=", keys["dtype"]);
  absl::StatusOr<Workload> form = ParseWorkload(spec);
  if (!form.ok() || form->dag->workload_key() == w.dag->workload_key()) return std::nullopt;
  return *std::move(form);
}

}  // namespace tuneforge::te
