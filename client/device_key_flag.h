// --device-key: the device class a command's records belong to (tune, best,
// export). `--target` once meant that here too, but is a codegen target in
// show and measure; it is still accepted for a device key, with a note.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"

namespace tuneforge::cli {

struct DeviceKeyFlag {
  std::string key;            // --device-key
  std::string legacy_target;  // --target, the old spelling
};

void AddDeviceKeyFlag(CLI::App* cmd, DeviceKeyFlag* flag, const std::string& help);

// The key given ("" when none); prints the note on stderr when it came as
// --target. Error: both spellings with different keys.
absl::StatusOr<std::string> DeviceKeyOf(const DeviceKeyFlag& flag);

}  // namespace tuneforge::cli
