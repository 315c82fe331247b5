#include "app/profile/profile_schema.h"

#include "app/profile/device_profile_fields.h"
#include "app/profile/host_profile_fields.h"

namespace nvmesim {

nlohmann::ordered_json& device_profile_properties(nlohmann::ordered_json& schema) {
  return schema["properties"]["drives"]["items"]["properties"]["profile"]["oneOf"][1]["properties"];
}

nlohmann::ordered_json& host_profile_properties(nlohmann::ordered_json& schema) {
  return schema["properties"]["host"]["oneOf"][1]["properties"];
}

nlohmann::ordered_json with_generated_profile_entries(nlohmann::ordered_json schema) {
  set_profile_properties(device_profile_properties(schema), std::span<const DeviceField>(kDeviceFields),
                         kDeviceHandWritten);
  set_profile_properties(host_profile_properties(schema), std::span<const HostField>(kHostFields), kHostHandWritten);
  for (const char* engine : {"libaio", "io_uring"})
    set_profile_properties(host_profile_properties(schema)[engine]["properties"],
                           std::span<const EngineField>(kEngineFields), {});
  nlohmann::ordered_json& host = host_profile_properties(schema);
  set_profile_properties(host["platform"]["properties"], std::span<const PlatformField>(kPlatformFields), {});
  set_profile_properties(host["softirq_limits"]["properties"],
                         std::span<const SoftirqLimitsField>(kSoftirqLimitsFields), {});
  set_profile_properties(host["irq_poll"]["properties"], std::span<const IrqPollField>(kIrqPollFields), {});
  set_profile_properties(host["completion_ipi"]["properties"],
                         std::span<const CompletionIpiField>(kCompletionIpiFields), {});
  return schema;
}

}  // namespace nvmesim
