#include "client/device_key_flag.h"

#include <iostream>

#include "absl/strings/str_cat.h"

namespace tuneforge::cli {

void AddDeviceKeyFlag(CLI::App* cmd, DeviceKeyFlag* flag, const std::string& help) {
  cmd->add_option("--device-key", flag->key, help);
  cmd->add_option("--target", flag->legacy_target, "old spelling of --device-key");
}

absl::StatusOr<std::string> DeviceKeyOf(const DeviceKeyFlag& flag) {
  if (flag.legacy_target.empty()) return flag.key;
  if (!flag.key.empty() && flag.key != flag.legacy_target)
    return absl::InvalidArgumentError(absl::StrCat("--device-key ", flag.key, " and --target ", flag.legacy_target,
                                                   " disagree; give the device key once, as --device-key"));
  std::cerr << "note: --target is a codegen target; use --device-key for device keys (--device-key "
            << flag.legacy_target << ")" << std::endl;
  return flag.legacy_target;
}

}  // namespace tuneforge::cli
