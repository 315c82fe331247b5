#include "hw/runner/run/commands.h"

#include <cstring>
#include <iomanip>

#include "hw/base/refusal.h"
#include "hw/runner/io/io_buffers.h"
#include "hw/runner/run/drive_session.h"

namespace nvmesim::hw {

namespace {

// One command on a polled queue, waited for with a timeout; returns the status field.
uint16_t sync_io(nvme::Controller& ctrl, nvme::QueuePair& q, nvme::Sqe cmd, Clock& clock,
                 Duration timeout) {
  static_cast<void>(q.submit(cmd));
  q.ring_sq_doorbell();
  Time deadline = clock.now() + timeout;
  uint16_t status = 0;
  bool done = false;
  while (!done) {
    q.reap(1, [&](const nvme::Cqe& e) {
      done = e.cid == cmd.cid;
      status = nvme::status_field(e.status) & 0x7ff;
    });
    if (done) break;
    if (clock.now() >= deadline) {
      ctrl.check_fatal();
      throw nvme::CommandTimeout("I/O command (opcode " + std::to_string(cmd.opc) + ") got no completion within " +
                                 std::to_string(timeout.count_ns() / 1000000) + " ms");
    }
  }
  return status;
}

int rwtest_on(DriveSession& s, LbaRange range, uint32_t chunk_bytes, const std::atomic<bool>* stop,
              std::ostream& out);

void fill_pattern(uint8_t* p, uint64_t lba, uint32_t blocks, uint32_t block_bytes) {
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t i = 0; i < block_bytes; i += 8) {
      uint64_t v = (lba + b) * 0x9e3779b97f4a7c15ull ^ (uint64_t(i) << 40) ^ 0x6e766d6573696dull;
      std::memcpy(p + size_t(b) * block_bytes + i, &v, 8);
    }
}

}  // namespace

int identify_command(const std::string& bdf, std::ostream& out) {
  DriveSession s(bdf);
  nvme::Controller& c = s.ctrl();
  const auto& id = s.info();
  const auto& ns = s.ns();
  nvme::Cap cap = c.cap();
  out << "controller " << bdf << "\n"
      << "  model:      " << id.model << "\n"
      << "  serial:     " << id.serial << "\n"
      << "  firmware:   " << id.firmware << "\n"
      << "  vendor:     0x" << std::hex << id.vid << std::dec << "\n"
      << "  version:    " << (c.version() >> 16) << "." << ((c.version() >> 8) & 0xff) << "\n"
      << "  MQES+1:     " << cap.mqes() << " entries per queue\n"
      << "  CAP.TO:     " << cap.timeout_ms() << " ms\n"
      << "  DSTRD:      " << cap.dstrd() << "\n"
      << "  max xfer:   " << id.max_transfer_bytes() << " bytes (MDTS " << int(id.mdts) << ")\n"
      << "  namespaces: " << id.nn << "\n"
      << "  MSI-X:      " << s.device().msix_vectors() << " vectors\n"
      << "namespace " << ns.nsid << ": " << ns.size_blocks << " blocks of " << ns.block_bytes << " bytes ("
      << ns.size_blocks * ns.block_bytes / (1024 * 1024) << " MiB)\n";

  nvme::AdminResult q = c.get_feature(nvme::feature::kNumberOfQueues);
  if (q.ok())
    out << "feature 07h: " << (q.dw0 & 0xffff) + 1 << " I/O SQs, " << (q.dw0 >> 16) + 1 << " I/O CQs\n";
  nvme::AdminResult co = c.get_feature(nvme::feature::kInterruptCoalescing);
  if (co.ok())
    out << "feature 08h: THR " << (co.dw0 & 0xff) << " TIME " << ((co.dw0 >> 8) & 0xff) << " (x100 us)\n";
  else
    out << "feature 08h: Get refused: " << nvme::describe_status(co.status) << "\n";
  // Writing the value it already has (or "off") is harmless, and shows whether the
  // controller lets coalescing be changed at all.
  nvme::AdminResult set = c.set_feature(nvme::feature::kInterruptCoalescing, co.ok() ? co.dw0 & 0xffff : 0);
  out << "feature 08h: Set " << (set.ok() ? "accepted" : "refused: " + nvme::describe_status(set.status)
                                                                + " (tolerated: coalescing policies run without it)")
      << "\n";
  nvme::AdminResult iv = c.get_feature(nvme::feature::kInterruptVectorConfig, 1);
  if (iv.ok())
    out << "feature 09h: vector 1 coalescing " << ((iv.dw0 >> 16) & 1 ? "disabled (CD)" : "allowed") << "\n";
  else
    out << "feature 09h: Get refused: " << nvme::describe_status(iv.status) << "\n";

  // Masking one MSI-X vector from user space: probe VFIO's mask action and time the
  // detach/re-attach fallback the runner uses.
  if (s.device().msix_vectors() >= 2) {
    s.irqs().enable(2);
    int err = 0;
    bool mask_ok = s.irqs().probe_action_mask(&err);
    out << "vfio MSI-X ACTION_MASK: " << (mask_ok ? "supported" : std::string("unsupported (") + std::strerror(err) + ")")
        << "\n";
    constexpr int kRounds = 20;
    Time t0 = s.clock().now();
    for (int i = 0; i < kRounds; ++i) {
      s.irqs().set_delivery(1, false);
      s.irqs().set_delivery(1, true);
    }
    Duration per = (s.clock().now() - t0) / kRounds;
    out << "vfio mask+unmask (trigger detach/re-attach): " << per.count_ns() / 1000 << " us per pair\n";
  }
  return exit_code::kOk;
}

int rwtest_command(const std::string& bdf, LbaRange range, uint32_t chunk_bytes,
                   const std::atomic<bool>* stop, std::ostream& out) {
  DriveSession s(bdf);
  try {
    return rwtest_on(s, range, chunk_bytes, stop, out);
  } catch (const nvme::NvmeError&) {
    s.mark_failed();  // reset rather than ask a failed controller to shut down
    throw;
  }
}

namespace {

int rwtest_on(DriveSession& s, LbaRange range, uint32_t chunk_bytes, const std::atomic<bool>* stop,
              std::ostream& out) {
  const auto& ns = s.ns();
  if (!range_within(range, ns.size_blocks))
    throw Refusal("--allow-write range " + std::to_string(range.first) + ":" + std::to_string(range.count) +
                  " is empty or ends past the namespace (" + std::to_string(ns.size_blocks) + " blocks)");
  if (s.device().msix_vectors() == 0)
    throw Refusal("refusing " + s.device().bdf() + ": it reports 0 MSI-X vectors (VFIO_DEVICE_GET_IRQ_INFO)");
  chunk_bytes = std::min(chunk_bytes, s.info().max_transfer_bytes());
  uint32_t chunk_blocks = std::max(1u, chunk_bytes / ns.block_bytes);
  chunk_bytes = chunk_blocks * ns.block_bytes;

  nvme::Controller& c = s.ctrl();
  c.set_queue_count(1);
  s.irqs().enable(1);
  auto q = c.create_io_queue(1, 16, false, 0);
  IoBuffers buf(s.dma(), 2, chunk_bytes);
  Duration timeout = Duration::s(10);
  uint16_t cid = 0;
  uint64_t mismatches = 0, blocks_done = 0;

  auto io = [&](uint8_t opc, uint16_t slot, uint64_t lba, uint32_t n) {
    nvme::Sqe cmd = nvme::rw(opc, ns.nsid, lba, n);
    buf.fill_prps(cmd, slot);
    cmd.cid = cid++;
    uint16_t st = sync_io(c, *q, cmd, s.clock(), timeout);
    if (st)
      throw nvme::CommandFailed(std::string(opc == nvme::io::kWrite ? "write" : "read") + " at LBA " +
                                    std::to_string(lba) + " failed: " + nvme::describe_status(st),
                                st);
  };

  for (uint64_t lba = range.first; lba < range.first + range.count && !(stop && *stop); lba += chunk_blocks) {
    uint32_t n = uint32_t(std::min<uint64_t>(chunk_blocks, range.first + range.count - lba));
    fill_pattern(buf.data(0), lba, n, ns.block_bytes);
    io(nvme::io::kWrite, 0, lba, n);
  }
  nvme::Sqe fl = nvme::flush(ns.nsid);
  fl.cid = cid++;
  if (uint16_t st = sync_io(c, *q, fl, s.clock(), timeout))
    throw nvme::CommandFailed("flush failed: " + nvme::describe_status(st), st);

  for (uint64_t lba = range.first; lba < range.first + range.count && !(stop && *stop); lba += chunk_blocks) {
    uint32_t n = uint32_t(std::min<uint64_t>(chunk_blocks, range.first + range.count - lba));
    std::memset(buf.data(1), 0, size_t(n) * ns.block_bytes);
    io(nvme::io::kRead, 1, lba, n);
    fill_pattern(buf.data(0), lba, n, ns.block_bytes);
    for (uint32_t b = 0; b < n; ++b) {
      size_t off = size_t(b) * ns.block_bytes;
      if (std::memcmp(buf.data(0) + off, buf.data(1) + off, ns.block_bytes) != 0) {
        if (mismatches < 5) out << "mismatch at LBA " << lba + b << "\n";
        ++mismatches;
      }
    }
    blocks_done += n;
  }
  c.delete_io_queue(*q);
  q.reset();
  if (stop && *stop) {
    out << "rwtest: interrupted after verifying " << blocks_done << " blocks\n";
    return exit_code::kInterrupted;
  }
  out << "rwtest: wrote, flushed and read back " << blocks_done << " blocks (LBA " << range.first << ".."
      << range.first + range.count - 1 << ", " << chunk_bytes << "-byte commands): "
      << (mismatches ? std::to_string(mismatches) + " MISMATCHED" : std::string("all match")) << "\n";
  return mismatches ? exit_code::kError : exit_code::kOk;
}

}  // namespace

}  // namespace nvmesim::hw
