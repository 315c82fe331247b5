// Device and host profiles: every physical constant the models use, loaded from
// scenarios/profiles/*.json. Plain data; the loader validates ranges.
#pragma once

#include <array>
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

// Interrupt coalescing as the controller implements it (NVMe leaves both open).
// The aggregation time runs per vector from its first held posting, or as one
// controller-wide timer that releases every vector holding postings when it expires.
enum class CoalescingTimer : uint8_t { per_vector, controller };
// The aggregation count restarts when the controller signals the vector (today's
// model), or also when the host writes a CQ head doorbell of the vector's queues
// (entries the host has consumed no longer count).
enum class CoalescingRestart : uint8_t { on_signal, on_cq_doorbell };

// How a drive with a write path starts a run (its preconditioning): fresh out of the box
// (every block erased, nothing to collect: write amplification 1) or in the steady state of
// SNIA PTS's preconditioning (the full span written twice with 4 KiB random writes: garbage
// collection at the write amplification of its over-provisioning and utilization).
enum class DriveState : uint8_t { steady, fob };

struct DeviceProfile {
  std::string name;
  uint32_t max_io_queues = 128;     // I/O queue pairs the controller offers
  uint32_t max_queue_depth = 1024;  // MQES + 1
  uint32_t units = 256;             // parallel internal units (dies/planes/channels)
  // 0: the units are a pool, any free one serves the next command (the model as it was).
  // Else the units are flash targets (a die's planes that read on their own): a read
  // waits for the one its address maps to (uniformly random for random reads, as the FTL
  // stripes pages over them) and holds it for min(service time, media_read); the rest of
  // its service time is the controller's pipeline (ECC, DMA), which no other read waits
  // for. Writes hold no target: they are acknowledged from the write buffer.
  Duration media_read = Duration::zero();
  double iops_max = 3.2e6;          // controller command-processing ceiling
  double link_bytes_per_s = 14.5e9; // PCIe data ceiling per direction
  ServiceSpec read;
  ServiceSpec write;
  Duration sq_fetch = Duration::ns(500);        // doorbell seen -> SQE fetched
  Duration cqe_post = Duration::ns(300);        // data done -> CQE visible in host memory
  Duration msix_delivery = Duration::ns(700);   // MSI-X write -> handler may start on the core
  Duration admin_command = Duration::us(20);    // e.g. Set Features, doorbell to CQE
  uint32_t arbitration_burst = 8;               // SQEs taken from one SQ per RR turn
  // MSI-X table size. 0: the simulator's simplified shape (one vector per I/O queue, the
  // admin queue sharing the first, so a one-queue drive has a shared vector). Else the
  // driver's rule (drivers/nvme/host/pci.c, nvme_setup_io_queues): num_vecs = min(I/O
  // queues + 1, table), I/O queues = max(num_vecs - 1, 1), a dedicated vector per queue
  // iff num_vecs > 1.
  uint32_t msix_table_size = 0;
  CoalescingTimer coalescing_timer = CoalescingTimer::per_vector;
  CoalescingRestart coalescing_count_restart = CoalescingRestart::on_signal;
  // The write path (models/device/flash_writes.h), on when program > 0 (needs media_read
  // > 0: the targets are the ones reads use). Writes are acknowledged from a write buffer
  // of write_buffer_kib; the buffer drains by programs of program_kib on the flash targets,
  // each holding its target for `program`; garbage collection adds (WA - 1) relocations per
  // programmed random byte (a read of media_read and a program each) and an erase of `erase`
  // per block_kib programmed, WA from over_provisioning and utilization
  // (models/device/write_amplification.h). A write that finds the buffer full waits for
  // space. Off: a write is served by `write` alone and holds no target (the model as it was).
  Duration program = Duration::zero();   // tPROG of one program_kib program (its mean)
  // Each program's own time: program x (1 + program_spread x (2u - 1)), u ~ U[0, 1) from the
  // drive's own stream. A NAND program's time varies with the pulses its cells need (ISPP);
  // 0: every program takes `program` exactly (the model as it was).
  double program_spread = 0;
  // Garbage collection in phases (steady state; why: models/device/flash_writes.h): each
  // owes (WA - 1) x f relocations per random byte, f ~ U[1 - gc_pace_spread, 1 +
  // gc_pace_spread], and lasts an exponential amount of host data of mean
  // gc_pace_phase_mib. 0: one pace, WA - 1 (the model as it was).
  double gc_pace_spread = 0;
  uint32_t gc_pace_phase_mib = 0;
  uint32_t write_buffer_kib = 0;         // DRAM/SLC write buffer
  uint32_t program_kib = 0;              // bytes one target programs at once
  uint32_t block_kib = 0;                // bytes of one target's erase block
  Duration erase = Duration::zero();     // tBERS
  double over_provisioning = 0;          // spare / user capacity
  double utilization = 1;                // share of the user capacity holding valid data
  DriveState state = DriveState::steady;
  // The drive's state at the run's start, drawn per seed: buffer fill ~ U[min, max] of the
  // buffer and a garbage-collection backlog ~ U[0, max] of work per target.
  double initial_buffer_fill_min = 0;
  double initial_buffer_fill_max = 0;
  Duration initial_gc_backlog_max = Duration::zero();
  bool write_path() const { return program > Duration::zero(); }
  // How completions leave the controller. 0: each CQE is posted as soon as its data is
  // done (the model as it was). Else in scheduling rounds every completion_round: a CQE
  // waits for the next round boundary (multiples of it from time 0), and a round posts at
  // most completion_round_max of them (0: no limit), the rest in the rounds after.
  Duration completion_round = Duration::zero();
  uint32_t completion_round_max = 0;
};

// Where an engine's completions are posted to the job's ring and when a blocked job is
// woken (issue 10, item 5). The first is the model as it was: posted by the completing
// context, the waiter woken once its minimum is met.
enum class CompletionPosting {
  in_completer_wake_at_min,  // libaio since Linux 6.8 ("fs/aio: obey min_nr when doing wakeups")
  in_completer_wake_each,    // libaio before 6.8: aio_complete wakes the waiter every time
  in_task_wake_each,         // io_uring task_work without DEFER_TASKRUN: the waiter is woken
                             // to run it, posts, and sleeps again if short of its minimum
  in_task_wake_at_min,       // io_uring with DEFER_TASKRUN: local task_work, woken at the minimum
};

// Per-engine software costs on the submitting/reaping task.
struct EngineCosts {
  Duration syscall = Duration::ns(300);         // entering and leaving the kernel once
  Duration submit_per_io = Duration::ns(400);   // request setup + SQE write
  Duration reap_per_io = Duration::ns(150);     // user-space completion handling
  Duration post_per_io = Duration::ns(100);     // posting to the aio/io_uring ring
  CompletionPosting posting = CompletionPosting::in_completer_wake_at_min;
};

// How an hrtimer expiry is charged (issue 10, item 2).
enum class TimerExpiry {
  folded,     // hrtimer_expiry is the whole cost, in the softirq that runs the callback;
              // an IRQ thread's sleep ends for free (the model as it was)
  interrupt,  // a local timer interrupt: entry + exit + hrtimer_expiry per expired timer,
              // in hard-IRQ context, and the interrupt's indirect cost
};

// Where in its range an IRQ thread's usleep_range ends (issue 10, item 3).
enum class TimerSlack {
  uniform_in_range,  // uniformly in [d, d + slack] (the model as it was)
  rt_ignores_slack,  // Linux 6.3+ and stable 5.10/5.15/6.1: no slack for RT tasks; the
                     // IRQ thread is SCHED_FIFO, so it wakes at d
  hard_expiry,       // at d + slack, where a lone range timer fires
};

// How a CQE's completion work is costed (issue 10, item 4).
enum class CqeCost {
  by_context,  // irq_per_cqe in hard IRQ, poll_per_cqe elsewhere (the model as it was)
  same_code,   // cqe_work in every context, plus cqe_cold once per drain on cold caches
};

// The MSI-X message path shared by the drives behind one root complex: the posted write
// crosses the root complex and the IOMMU's interrupt remapping, one message at a time.
// messages_per_s == 0 and latency == 0: off (each message only pays the device's
// msix_delivery). posted_credits == 0: the message is only late (a FIFO that holds
// nothing else up); > 0: PCIe ordering, the device's later posted writes (CQEs, read
// data) wait behind its messages in the path, and at most this many of its messages are
// in the path (models/device/posted_write_order.h). data_bytes_per_s > 0: the ordering point is
// one line for every drive behind it, messages and read data in arrival order, so a
// message being remapped holds up all of their DMA and takes its time from it.
// How a drive's MSI-X messages reach a core on an x86 host with interrupt remapping
// (Linux `intremap=`): `remappable` (the default mode: every message is translated and
// delivered to its core as an interrupt of its own) or `posted` (`intremap=posted_msi`,
// CONFIG_X86_POSTED_MSI since Linux 6.10: the remapping unit sets the vector's bit in the
// target CPU's posted-interrupt descriptor and notifies the CPU only when no notification
// is outstanding; the notification's handler runs every pending vector's handler in one
// interrupt entry). `off`: no platform model (a message takes its drive's msix_delivery).
enum class InterruptRemapping : uint8_t { off, remappable, posted };

// The platform between the drives and the cores: sockets, the root complexes (Intel: IIO
// stacks, each with its own interrupt-remapping unit) that the drives sit behind, and what
// an interrupt message costs there. Mechanism and sources: docs/calibration.md,
// "Interrupt delivery". Drives are placed by the scenario (drives[].socket,
// .root_complex) or spread as servers wire their bays: drive i on socket i % sockets,
// and each socket's drives fill its root complexes `drives_per_root_complex` at a time.
struct PlatformSpec {
  uint32_t sockets = 1;                  // the host's cores split evenly over them
  uint32_t drives_per_root_complex = 4;  // a x16 root port stack bifurcated into four x4
  InterruptRemapping remapping = InterruptRemapping::off;
  // Remapping unit (per root complex). A remappable interrupt is strongly ordered with DMA:
  // the unit first makes the earlier DMA writes visible (one drain for the messages that
  // are waiting when it starts), then sends the messages one at a time. A message is a
  // posted write, so the later writes of its drive's port wait behind it (PCIe ordering).
  Duration drain;         // one drain of earlier DMA writes, for a batch of messages
  Duration message;       // per remappable interrupt (or posted notification) sent
  Duration post;          // posted mode: per message posted into the CPU's descriptor
  // The socket's delivery of an interrupt to a core's local APIC, one at a time.
  Duration socket_message;
  Duration latency;       // from the socket to the core, holding nothing up
  bool active() const { return remapping != InterruptRemapping::off; }
};

// __do_softirq's limits (kernel/softirq.c): after max_restart passes or max_time, the
// pending work goes to the core's ksoftirqd, an ordinary task. max_restart == 0: off
// (softirq work never leaves softirq context).
struct SoftirqLimits {
  uint32_t max_restart = 0;  // MAX_SOFTIRQ_RESTART (10)
  Duration max_time;         // MAX_SOFTIRQ_TIME (2 ms)
  bool active() const { return max_restart > 0; }
};

// irq_poll as lib/irq_poll.c runs it: one budget per CPU and softirq pass shared by the
// queues polled there; a queue that used its whole weight is polled again in the next
// pass of the same softirq run, with no new timer expiry. budget_per_cpu == 0: off (each
// queue's own budget, a re-poll through a fresh timer expiry).
struct IrqPollSpec {
  uint32_t budget_per_cpu = 0;       // irq_poll_budget (256)
  bool rearm_from_poll_end = false;  // the poll timer counts its period from the poll's end
};

// blk-mq's completion on the submitting CPU (block/blk-mq.c, blk_mq_complete_need_ipi,
// rq_affinity=1 / QUEUE_FLAG_SAME_COMP): a request completed by an interrupt-side context
// on a core that shares no cache with the submitting core is sent there by an IPI and
// finished in that core's BLOCK_SOFTIRQ. cores_per_llc == 0: every core shares one cache
// (off: completions are handed over where they are reaped).
struct CompletionIpiSpec {
  uint32_t cores_per_llc = 0;  // cores c and d share a cache iff c / n == d / n
  Duration send;               // the sender: llist_add + IPI (x2APIC ICR write)
  Duration latency;            // IPI send -> the target core takes it
  Duration remote_per_cqe;     // end-of-request work on the submitting core, per request
  bool active() const { return cores_per_llc > 0; }
};

// Which CPU of a vector's affinity mask takes its interrupts (its effective affinity).
// first_in_mask: the lowest CPU (today's model). fewest_vectors: the CPU of the mask with
// the fewest vectors already placed, as x86's vector matrix does for managed interrupts
// (kernel/irq/matrix.c, matrix_find_best_cpu_managed), so several drives' queues that
// share a mask spread over its CPUs.
enum class IrqEffectiveCpu : uint8_t { first_in_mask, fewest_vectors };

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

  // The costs a real host pays for interrupts (issue 10, items 1-6). The defaults switch
  // each one off, so a profile that does not name them models the host as before.
  Duration irq_indirect = Duration::zero();     // 1: cache/TLB/branch pollution per interrupt,
                                                //    paid by the next task segment on the core
  TimerExpiry timer_expiry = TimerExpiry::folded;             // 2
  TimerSlack timer_slack = TimerSlack::uniform_in_range;      // 3
  CqeCost cqe_cost = CqeCost::by_context;                     // 4
  Duration cqe_work = Duration::ns(300);        // 4: nvme_handle_cqe + blk-mq completion, warm
  Duration cqe_cold = Duration::zero();         // 4: extra for a drain that starts cold
  Duration task_work_add = Duration::zero();    // 5: queueing a CQE's task_work (completer)
  Duration switch_out = Duration::zero();       // 6: a task that blocks leaves the core
  Duration idle_entry = Duration::zero();       // 6: the core enters its idle state
  Duration idle_exit = Duration::zero();        // 6: C-state exit latency when woken from idle
  PlatformSpec platform;
  // Posted MSIs (platform.remapping posted): the notification handler's work per pending
  // vector it finds (PIR exchange and dispatch to the vector's handler, no IDT entry).
  Duration posted_demux = Duration::zero();
  SoftirqLimits softirq_limits;
  IrqPollSpec irq_poll;
  IrqEffectiveCpu irq_effective_cpu = IrqEffectiveCpu::first_in_mask;
  CompletionIpiSpec completion_ipi;
};

// The profile's word for each choice, in enum order (loader, resolved scenario, schema).
inline constexpr std::array<const char*, 2> kCoalescingTimerNames = {"per_vector", "controller"};
inline constexpr std::array<const char*, 2> kCoalescingRestartNames = {"on_signal", "on_cq_doorbell"};
inline constexpr std::array<const char*, 2> kDriveStateNames = {"steady", "fob"};
inline constexpr std::array<const char*, 3> kInterruptRemappingNames = {"off", "remappable", "posted"};
inline constexpr std::array<const char*, 4> kCompletionPostingNames = {
    "in_completer_wake_at_min", "in_completer_wake_each", "in_task_wake_each", "in_task_wake_at_min"};
inline constexpr std::array<const char*, 2> kTimerExpiryNames = {"folded", "interrupt"};
inline constexpr std::array<const char*, 3> kTimerSlackNames = {"uniform_in_range", "rt_ignores_slack", "hard_expiry"};
inline constexpr std::array<const char*, 2> kCqeCostNames = {"by_context", "same_code"};

template <class Enum, std::size_t N>
constexpr const char* choice_name(const std::array<const char*, N>& names, Enum e) {
  return names[static_cast<std::size_t>(e)];
}

}  // namespace nvmesim
