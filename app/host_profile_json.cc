#include "app/host_profile_json.h"

#include <span>

#include "app/host_profile_fields.h"
#include "app/json_reader.h"

namespace nvmesim {
using nlohmann::json;

namespace {



// The interrupt-delivery and softirq mechanisms of a host profile; each absent = off.
void read_delivery(JsonReader& r, HostProfile& h, std::optional<InputError>& err) {
  if (r.has("platform")) {
    JsonReader pr(r.at("platform"), r.child("platform"), err);
    PlatformSpec& p = h.platform;
    p.sockets = pr.u32("sockets", 1, 1, 64);
    p.drives_per_root_complex = pr.u32("drives_per_root_complex", 4, 1, 64);
    p.remapping = read_choice(pr, "interrupt_remapping", InterruptRemapping::remappable, kInterruptRemappingNames);
    p.drain = pr.duration("drain_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    p.message = pr.duration("message_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    p.post = pr.duration("post_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    p.socket_message = pr.duration("socket_message_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    p.latency = pr.duration("latency_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    pr.reject_unknown();
    if (pr.ok() && !err && p.sockets > h.cores)
      pr.fail("sockets", "more sockets (" + std::to_string(p.sockets) + ") than cores (" + std::to_string(h.cores) + ")");
  }
  if (r.ok() && !err && r.has("softirq_limits")) {
    JsonReader sr(r.at("softirq_limits"), r.child("softirq_limits"), err);
    h.softirq_limits.max_restart = sr.u32("max_restart", 0, 0, 1000000);
    h.softirq_limits.max_time = sr.duration("max_time_ns", Duration::ms(2), Duration::ns(1), kMaxLatency, Duration::ns(1));
    sr.reject_unknown();
  }
  if (r.ok() && !err && r.has("irq_poll")) {
    JsonReader pr(r.at("irq_poll"), r.child("irq_poll"), err);
    h.irq_poll.budget_per_cpu = pr.u32("budget_per_cpu", 0, 0, 1 << 20);
    h.irq_poll.rearm_from_poll_end = pr.boolean("rearm_from_poll_end", false);
    pr.reject_unknown();
  }
  if (r.ok() && !err && r.has("completion_ipi")) {
    JsonReader cr(r.at("completion_ipi"), r.child("completion_ipi"), err);
    h.completion_ipi.cores_per_llc = cr.u32("cores_per_llc", 0, 0, 4096);
    h.completion_ipi.send = cr.duration("send_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    h.completion_ipi.latency = cr.duration("latency_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
    h.completion_ipi.remote_per_cqe =
        cr.duration("remote_per_cqe_ns", Duration::zero(), Duration::zero(), kMaxCost, Duration::ns(1));
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
