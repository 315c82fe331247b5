// The drive profile's table (app/profile/profile_fields.h): every scalar field of DeviceProfile,
// in the order the loader reads them (the first error wins, so the order is behaviour).
// Not in the table: the name (an identity, default "device") and the read/write
// service-time distributions (nested objects: app/profile/device_profile_json.cc and their
// hand-written entries in scenarios/schema.json).
#pragma once

#include "app/profile/profile_fields.h"
#include "vocab/profiles.h"

namespace nvmesim {

using DeviceField = ProfileField<DeviceProfile, CoalescingTimer, CoalescingRestart, DriveState>;

inline constexpr DeviceField kDeviceFields[] = {
    {.key = "max_io_queues", .member = &DeviceProfile::max_io_queues, .min = 1, .max = 65535,
     .doc = "I/O queue pairs the controller offers"},
    {.key = "max_queue_depth", .member = &DeviceProfile::max_queue_depth, .min = 2, .max = 65536,
     .doc = "entries per queue the controller allows (MQES + 1)"},
    {.key = "units", .member = &DeviceProfile::units, .min = 1, .max = 1 << 20, .doc = "parallel internal units"},
    {.key = "media_read_ns", .member = &DeviceProfile::media_read, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .write = WriteBack::unless_default,
     .doc = "0: the units are a pool; else each read waits for the unit (flash target) its address maps to "
            "and holds it this long at most (the NAND read time and its page transfer)"},
    // 0 means no ceiling; below the minimums a run would model a stalled drive (and the
    // device's picosecond arithmetic has no use for them).
    {.key = "iops_max", .member = &DeviceProfile::iops_max, .unit = "commands/s", .min = 0, .max = 1e9,
     .min_nonzero = 1, .doc = "command-processing ceiling; 0 = none, else 1 .. 1e9 commands/s"},
    {.key = "link_bytes_per_s", .member = &DeviceProfile::link_bytes_per_s, .unit = "bytes/s", .min = 0,
     .max = 1e12, .min_nonzero = 1e6, .doc = "PCIe data ceiling per direction; 0 = none, else 1e6 .. 1e12 bytes/s"},
    {.key = "sq_fetch_ns", .member = &DeviceProfile::sq_fetch, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .doc = "doorbell to SQE fetched"},
    {.key = "cqe_post_ns", .member = &DeviceProfile::cqe_post, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .doc = "data done to CQE visible"},
    {.key = "msix_delivery_ns", .member = &DeviceProfile::msix_delivery, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .doc = "MSI-X write to handler start"},
    {.key = "admin_command_ns", .member = &DeviceProfile::admin_command, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .doc = "admin command round trip"},
    {.key = "arbitration_burst", .member = &DeviceProfile::arbitration_burst, .min = 1, .max = 65536,
     .doc = "SQEs taken from one SQ per round-robin turn"},
    {.key = "msix_table_size", .member = &DeviceProfile::msix_table_size, .min = 0, .max = 2048,
     .write = WriteBack::unless_default,
     .doc = "MSI-X vectors the controller offers; 0: one per I/O queue with the admin queue sharing the first "
            "(simplified); else the driver's num_vecs rule"},
    {.key = "coalescing_timer", .member = &DeviceProfile::coalescing_timer, .choices = kCoalescingTimerNames,
     .write = WriteBack::unless_default, .doc = "aggregation time per vector or one controller-wide timer"},
    {.key = "coalescing_count_restart", .member = &DeviceProfile::coalescing_count_restart,
     .choices = kCoalescingRestartNames, .write = WriteBack::unless_default,
     .doc = "when the aggregation count restarts"},
    // The write path (vocab/profiles.h, models/device/flash_writes.h): off unless program_ns
    // > 0; every row is written back only when set, so profiles without it resolve as before.
    {.key = "program_ns", .member = &DeviceProfile::program, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .write = WriteBack::unless_default,
     .doc = "0: no write path (writes are served by `write` alone); else tPROG: how long one program of "
            "program_kib holds its flash target"},
    {.key = "program_spread", .member = &DeviceProfile::program_spread, .min = 0, .max = 0.5,
     .write = WriteBack::unless_default,
     .doc = "each program takes program_ns x (1 + program_spread x (2u - 1)), u uniform in [0, 1): how much one "
            "program's time varies around program_ns (0: none)"},
    {.key = "gc_pace_spread", .member = &DeviceProfile::gc_pace_spread, .min = 0, .max = 0.5,
     .write = WriteBack::unless_default,
     .doc = "steady state: in each phase of garbage collection the relocations owed per random byte are (WA - 1) x f, "
            "f uniform in [1 - gc_pace_spread, 1 + gc_pace_spread] (0: one pace)"},
    {.key = "gc_pace_phase_mib", .member = &DeviceProfile::gc_pace_phase_mib, .unit = "MiB", .min = 0,
     .max = 1 << 24, .write = WriteBack::unless_default,
     .doc = "mean length of a garbage-collection phase, in MiB of host data programmed (exponential); >= 1 with "
            "gc_pace_spread > 0"},
    {.key = "write_buffer_kib", .member = &DeviceProfile::write_buffer_kib, .unit = "KiB", .min = 0, .max = 1 << 24,
     .write = WriteBack::unless_default,
     .doc = "DRAM/SLC write buffer that acknowledges writes; a write that finds it full waits for space"},
    {.key = "program_kib", .member = &DeviceProfile::program_kib, .unit = "KiB", .min = 0, .max = 1 << 16,
     .write = WriteBack::unless_default, .doc = "bytes one flash target programs at once"},
    {.key = "block_kib", .member = &DeviceProfile::block_kib, .unit = "KiB", .min = 0, .max = 1 << 24,
     .write = WriteBack::unless_default, .doc = "bytes of one target's erase block: one erase per block programmed"},
    {.key = "erase_ns", .member = &DeviceProfile::erase, .unit = "ns", .min = 0, .max = kMaxLatencyNs,
     .write = WriteBack::unless_default, .doc = "tBERS: how long one block erase holds its target"},
    {.key = "over_provisioning", .member = &DeviceProfile::over_provisioning, .min = 0, .max = 100,
     .write = WriteBack::unless_default,
     .doc = "spare flash / user capacity; with utilization it sets the steady state's write amplification"},
    {.key = "utilization", .member = &DeviceProfile::utilization, .min = 0.01, .max = 1,
     .write = WriteBack::unless_default, .doc = "share of the user capacity that holds valid data"},
    {.key = "state", .member = &DeviceProfile::state, .choices = kDriveStateNames, .write = WriteBack::unless_default,
     .doc = "steady: preconditioned (garbage collection at its write amplification); fob: fresh out of the box"},
    {.key = "initial_buffer_fill_min", .member = &DeviceProfile::initial_buffer_fill_min, .min = 0, .max = 1,
     .write = WriteBack::unless_default,
     .doc = "each seed starts the write buffer at least this full (uniform draw up to initial_buffer_fill_max, share "
            "of the buffer)"},
    {.key = "initial_buffer_fill_max", .member = &DeviceProfile::initial_buffer_fill_max, .min = 0, .max = 1,
     .write = WriteBack::unless_default,
     .doc = "each seed starts the write buffer this full at most (uniform draw, share of the buffer)"},
    {.key = "initial_gc_backlog_max_us", .member = &DeviceProfile::initial_gc_backlog_max, .unit = "us", .min = 0,
     .max = 1e7, .write = WriteBack::unless_default,
     .doc = "each seed starts with at most this much garbage-collection work per flash target (uniform draw)"},
    {.key = "completion_round_ns", .member = &DeviceProfile::completion_round, .unit = "ns", .min = 0,
     .max = 1e7, .write = WriteBack::unless_default,
     .doc = "0: each CQE is posted when its data is done; else CQEs are posted together at round boundaries "
            "this far apart"},
    {.key = "completion_round_max", .member = &DeviceProfile::completion_round_max, .min = 0, .max = 1 << 20,
     .write = WriteBack::unless_default,
     .doc = "with completion_round_ns: at most this many CQEs per round, the rest in the next (0: no limit)"},
};

}  // namespace nvmesim
