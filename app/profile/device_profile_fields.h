// The drive profile's table (app/profile/profile_fields.h): every scalar field of DeviceProfile,
// in the order the loader reads them (the first error wins, so the order is behaviour).
// Not in the table: the name (an identity, default "device") and the read/write
// service-time distributions (nested objects: app/profile/device_profile_json.cc and their
// hand-written entries in scenarios/schema.json).
#pragma once

#include "app/profile/profile_fields.h"
#include "vocab/profiles.h"

namespace nvmesim {

using DeviceField = ProfileField<DeviceProfile, CoalescingTimer, CoalescingRestart>;

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
};

}  // namespace nvmesim
