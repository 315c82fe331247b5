// Device and host profiles: every physical constant the models use, loaded from
// scenarios/profiles/*.json. Plain data; the loader validates ranges.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vocab/time.h"

namespace nvmesim {

// A service-time distribution. Probabilities are doubles; the sampled time is integer ns.
struct DistSpec {
  enum class Kind { constant, exponential, lognormal, empirical };
  Kind kind = Kind::constant;
  Duration mean = Duration::us(70);
  double sigma = 0.0;  // lognormal: standard deviation of the underlying normal
  // empirical: points of a CDF, (probability, time), probabilities ascending to 1.0
  std::vector<std::pair<double, Duration>> cdf;
};

// Service time of one command: a draw from `dist` for a 4 KiB transfer, plus
// `per_extra_4k` for every further 4 KiB of the block size.
struct ServiceSpec {
  DistSpec dist;
  Duration per_extra_4k = Duration::zero();
};

struct DeviceProfile {
  std::string name;
  uint32_t max_io_queues = 128;     // I/O queue pairs the controller offers
  uint32_t max_queue_depth = 1024;  // MQES + 1
  uint32_t units = 256;             // parallel internal units (dies/planes/channels)
  double iops_max = 3.2e6;          // controller command-processing ceiling
  double link_bytes_per_s = 14.5e9; // PCIe data ceiling per direction
  ServiceSpec read;
  ServiceSpec write;
  Duration sq_fetch = Duration::ns(500);        // doorbell seen -> SQE fetched
  Duration cqe_post = Duration::ns(300);        // data done -> CQE visible in host memory
  Duration msix_delivery = Duration::ns(700);   // MSI-X write -> handler may start on the core
  Duration admin_command = Duration::us(20);    // e.g. Set Features, doorbell to CQE
  uint32_t arbitration_burst = 8;               // SQEs taken from one SQ per RR turn
};

// Per-engine software costs on the submitting/reaping task.
struct EngineCosts {
  Duration syscall = Duration::ns(300);         // entering and leaving the kernel once
  Duration submit_per_io = Duration::ns(400);   // request setup + SQE write
  Duration reap_per_io = Duration::ns(150);     // user-space completion handling
  Duration post_per_io = Duration::ns(100);     // posting to the aio/io_uring ring (completer)
};

struct HostProfile {
  std::string name;
  uint32_t cores = 16;
  EngineCosts libaio;
  EngineCosts io_uring;
  Duration doorbell_mmio = Duration::ns(150);   // posted MMIO write (SQ tail / CQ head)
  Duration irq_entry = Duration::ns(550);       // vector entry, irq_enter, handler dispatch
  Duration irq_exit = Duration::ns(450);        // EOI, irq_exit, return
  Duration irq_per_cqe = Duration::ns(350);     // nvme_handle_cqe + blk-mq completion
  Duration poll_per_cqe = Duration::ns(300);    // same work from a polling context
  Duration poll_empty_check = Duration::ns(60); // one look at the CQ that finds nothing
  Duration wakeup = Duration::ns(500);          // try_to_wake_up, charged to the waker
  Duration context_switch = Duration::ns(900);  // switch-in of a woken task
  Duration wakeup_latency = Duration::us(2);    // woken task runnable after (scheduler)
  Duration lazy_mask = Duration::ns(250);       // flow handler masking a disabled vector
  Duration irq_disable = Duration::ns(40);      // disable_irq_nosync (lazy, no MMIO)
  Duration irq_enable = Duration::ns(300);      // enable_irq incl. MSI-X unmask MMIO
  Duration intms_mmio = Duration::ns(600);      // INTMS/INTMC write + read-back (plain MSI)
  Duration softirq_entry = Duration::ns(200);   // raising + entering softirq processing
  Duration hrtimer_arm = Duration::ns(100);
  Duration hrtimer_expiry = Duration::ns(300);  // timer interrupt + hrtimer callback
  Duration timer_slack_min = Duration::ns(50);  // hrtimer base slack
  Duration cond_resched = Duration::ns(50);
  uint32_t fsleep_slack_pct = 25;               // usleep_range(us, us + us * pct / 100)
  Duration fsleep_busy_max = Duration::us(10);  // fsleep busy-waits up to this
  Duration admin_submit = Duration::us(2);      // building and ringing an admin command
};

}  // namespace nvmesim
