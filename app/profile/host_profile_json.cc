#include "app/profile/host_profile_json.h"

#include <span>

#include "app/input/json_reader.h"
#include "app/profile/host_profile_fields.h"

namespace nvmesim {
using nlohmann::json;

namespace {



// The interrupt-delivery and softirq mechanisms of a host profile; each absent = off.
void read_delivery(JsonReader& r, HostProfile& h, std::optional<InputError>& err) {
  if (r.has("platform")) {
    JsonReader pr(r.at("platform"), r.child("platform"), err);
    PlatformSpec& p = h.platform;
    p.remapping = InterruptRemapping::remappable;  // a platform named is on
    read_profile_fields(pr, p, std::span<const PlatformField>(kPlatformFields));
    pr.reject_unknown();
    if (pr.ok() && !err && p.sockets > h.cores)
      pr.fail("sockets", "more sockets (" + std::to_string(p.sockets) + ") than cores (" + std::to_string(h.cores) + ")");
  }
  if (r.ok() && !err && r.has("softirq_limits")) {
    JsonReader sr(r.at("softirq_limits"), r.child("softirq_limits"), err);
    h.softirq_limits.max_time = Duration::ms(2);  // MAX_SOFTIRQ_TIME
    read_profile_fields(sr, h.softirq_limits, std::span<const SoftirqLimitsField>(kSoftirqLimitsFields));
    sr.reject_unknown();
  }
  if (r.ok() && !err && r.has("irq_poll")) {
    JsonReader pr(r.at("irq_poll"), r.child("irq_poll"), err);
    read_profile_fields(pr, h.irq_poll, std::span<const IrqPollField>(kIrqPollFields));
    pr.reject_unknown();
  }
  if (r.ok() && !err && r.has("completion_ipi")) {
    JsonReader cr(r.at("completion_ipi"), r.child("completion_ipi"), err);
    read_profile_fields(cr, h.completion_ipi, std::span<const CompletionIpiField>(kCompletionIpiFields));
    cr.reject_unknown();
  }
  if (r.ok() && !err)
    h.irq_effective_cpu = r.choice("irq_effective_cpu", "first_in_mask", {"first_in_mask", "fewest_vectors"}) == "fewest_vectors"
                              ? IrqEffectiveCpu::fewest_vectors
                              : IrqEffectiveCpu::first_in_mask;
}


void read_engine(JsonReader& r, const std::string& key, EngineCosts& e, std::optional<InputError>& err) {
  if (!r.has(key)) return;
  JsonReader er(r.at(key), r.child(key), err);
  read_profile_fields(er, e, std::span<const EngineField>(kEngineFields));
  er.reject_unknown();
}

}  // namespace

HostProfile read_host(const json& j, const std::string& path, std::optional<InputError>& err) {
  HostProfile h;
  JsonReader r(j, path, err);
  h.name = r.string("name", "host");
  h.cores = r.u32("cores", h.cores, 1, 4096);
  read_engine(r, "libaio", h.libaio, err);
  read_engine(r, "io_uring", h.io_uring, err);
  read_profile_fields(r, h, std::span<const HostField>(kHostFields));
  read_delivery(r, h, err);
  r.reject_unknown({"libaio", "io_uring", "comment", "sources", "ranges", "file", "platform", "softirq_limits", "irq_poll",
                    "completion_ipi"});
  return h;
}

}  // namespace nvmesim
