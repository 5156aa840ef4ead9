// ProbeDevice: this machine as the server sees it.
#include <unistd.h>

#include <climits>

#include "common/codegen/target.h"
#include "worker/agent/device_key.h"
#include "worker/agent/worker_agent.h"

namespace tuneforge::worker {
namespace {

std::string HostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

}  // namespace

v1::DeviceInfo ProbeDevice(const std::string& device_key_override, bool runner_only, bool emulated,
                           const std::optional<codegen::Target>& gpu) {
  v1::DeviceInfo device;
  if (gpu && gpu->gpu) {
    device.set_device_key(device_key_override.empty() ? gpu->device_key() : device_key_override);
    device.set_triple(gpu->triple);
    device.set_cpu(gpu->cpu);
    device.set_cores(gpu->gpu->num_sms);
    device.set_hostname(HostName());
    device.set_can_build(!runner_only);
    device.set_kind(emulated ? v1::DEVICE_KIND_EMULATED : v1::DEVICE_KIND_GPU);
    return device;
  }
  const codegen::Target host = codegen::Target::Host();
  device.set_device_key(device_key_override.empty() ? DeviceKeyWithModel(host, HostCpuModelName(host))
                                                    : device_key_override);
  device.set_triple(host.triple);
  device.set_cpu(host.cpu);
  device.set_features(host.features);
  device.set_cores(host.num_cores);
  device.set_l1_bytes(host.l1_bytes);
  device.set_l2_bytes(host.l2_bytes);
  device.set_l3_bytes(host.l3_bytes);
  device.set_hostname(HostName());
  device.set_can_build(!runner_only);
  device.set_kind(emulated ? v1::DEVICE_KIND_EMULATED : v1::DEVICE_KIND_CPU);
  return device;
}

}  // namespace tuneforge::worker
