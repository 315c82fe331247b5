// The QueueEnv on a fake controller: policy hooks drain through the one reaper, the
// lazy mask holds and replays interrupts, and the threaded runner completes I/O.
#include "hw/runner/env/queue_env.h"

#include <gtest/gtest.h>

#include <atomic>

#include "hw/nvme/controller.h"
#include "hw/runner/env/queue_runner.h"
#include "hw/runner/io/io_buffers.h"
#include "hw/tests/fakes/fake_controller.h"
#include "policies/irq.h"
#include "policies/poll.h"

namespace nvmesim::hw {
namespace {

using testing::FakeClock;
using testing::FakeController;
using testing::FakeDma;
using testing::FakeVectors;

struct EnvRig {
  FakeDma dma;
  FakeVectors vectors;
  FakeController dev{dma, &vectors};
  FakeClock admin_clock;
  MonotonicClock clock;
  nvme::Controller ctrl{dev, dma, admin_clock};
  std::unique_ptr<nvme::QueuePair> q;
  std::unique_ptr<IoBuffers> bufs;
  std::unique_ptr<HwQueueEnv> env;

  explicit EnvRig(uint32_t depth = 16, bool watch_latency = false,
                  std::atomic<uint64_t>* drive_completions = nullptr, std::atomic<uint64_t>* drive_word = nullptr) {
    vectors.enable(2);
    ctrl.enable();
    q = ctrl.create_io_queue(1, depth, true, 1);
    bufs = std::make_unique<IoBuffers>(dma, depth, 4096);
    QueueSetup s;
    s.has_vector = true;
    s.vector = 1;
    s.watch_latency = watch_latency;
    s.drive_completions = drive_completions;
    s.drive_word = drive_word;
    env = std::make_unique<HwQueueEnv>(*q, *bufs, &vectors, clock, s);
  }
  void submit(int n) {
    for (int i = 0; i < n; ++i) env->submitter().submit(trace::Op::read, uint64_t(i) * 8, 8);
    env->submitter().ring_doorbell();
  }
  // n reads completed together, then one hard IRQ of `p` drains them: what it consumed.
  uint32_t complete_by_interrupt(int n, policy::IrqPolicy& p) {
    dev.faults.hold_io = true;
    submit(n);
    dev.release_io();
    env->enter(trace::Context::hardirq, env->now());
    p.on_interrupt(*env);
    return env->leave();
  }
};

TEST(HwQueueEnv, IrqPolicyDrainsAndCountsThroughTheEnv) {
  EnvRig r;
  policy::IrqPolicy p;
  r.dev.faults.hold_io = true;
  r.submit(5);
  EXPECT_EQ(r.env->inflight(), 5u);
  EXPECT_EQ(r.env->submitter().outstanding(), 5u);
  r.dev.release_io();
  EXPECT_GT(r.vectors.pending(1), 0u);
  r.env->enter(trace::Context::hardirq, r.env->now());
  p.on_interrupt(*r.env);
  EXPECT_EQ(r.env->leave(), 5u);
  EXPECT_EQ(r.env->counters().irq_useful, 1u);
  EXPECT_EQ(r.env->counters().completions, 5u);
  EXPECT_EQ(r.env->submitter().outstanding(), 0u);
  // An interrupt that finds nothing is spurious.
  p.on_interrupt(*r.env);
  EXPECT_EQ(r.env->counters().irq_spurious, 1u);
  ASSERT_EQ(r.env->recorder().commands().size(), 5u);
  for (const auto& c : r.env->recorder().commands()) {
    EXPECT_EQ(c.completed_by, trace::Context::hardirq);
    EXPECT_TRUE(c.irq.has_value());
    EXPECT_LE(c.submit, c.doorbell);
    EXPECT_LE(c.doorbell, c.cqe_seen);
    EXPECT_EQ(c.status, 0);
  }
}

// A policy that watches latencies (kWatchesLatency) gets each completion's, from its
// submission to the drain that consumed its CQE, as the trace records them; others none.
TEST(HwQueueEnv, LatenciesAreKeptOnlyForAPolicyThatWatchesThem) {
  for (bool watch : {false, true}) {
    EnvRig r(16, watch);
    policy::IrqPolicy p;
    EXPECT_EQ(r.complete_by_interrupt(5, p), 5u);
    const policy::LatencyBuckets& l = r.env->latencies();
    EXPECT_EQ(l.total, watch ? 5u : 0u);
    if (!watch) continue;
    int64_t longest = 0;
    for (const auto& c : r.env->recorder().commands()) longest = std::max(longest, (c.cqe_seen - c.submit).count_ns());
    EXPECT_EQ(l.quantile_bucket(1024), policy::LatencyBuckets::bucket(longest));
  }
}

// The controller's count (QueueEnv::drive_completions) is shared by its queues' envs: each
// completion adds to it; without one, a queue's own count stands for it.
TEST(HwQueueEnv, DriveCompletionsCountEveryQueueOfTheController) {
  std::atomic<uint64_t> drive{7};  // the controller's other queues consumed 7
  EnvRig r(16, false, &drive);
  policy::IrqPolicy p;
  EXPECT_EQ(r.complete_by_interrupt(5, p), 5u);
  EXPECT_EQ(r.env->counters().completions, 5u);
  EXPECT_EQ(drive.load(), 12u);
  EXPECT_EQ(r.env->drive_completions(), 12u);

  EnvRig alone;
  EXPECT_EQ(alone.complete_by_interrupt(3, p), 3u);
  EXPECT_EQ(alone.env->drive_completions(), 3u);
}

// The controller's word (QueueEnv::drive_word) is one for its queues' envs: what one
// writes, the others read; without one, a queue keeps its own.
TEST(HwQueueEnv, DriveWordIsTheControllers) {
  std::atomic<uint64_t> word{0};
  EnvRig a(16, false, nullptr, &word);
  EnvRig b(16, false, nullptr, &word);
  a.env->set_drive_word(41);
  EXPECT_EQ(b.env->drive_word(), 41u);
  EXPECT_EQ(word.load(), 41u);

  EnvRig alone;
  alone.env->set_drive_word(5);
  EXPECT_EQ(alone.env->drive_word(), 5u);
  EXPECT_EQ(word.load(), 41u);
}

TEST(HwQueueEnv, PollPolicyCountsEmptyAndUsefulLooks) {
  EnvRig r;
  policy::PollPolicy p;
  EXPECT_EQ(p.on_app_poll(*r.env), 0u);
  EXPECT_EQ(r.env->counters().poll_empty, 1u);
  r.submit(3);
  EXPECT_EQ(p.on_app_poll(*r.env), 3u);
  EXPECT_EQ(r.env->counters().poll_useful, 1u);
}

TEST(HwQueueEnv, LazyMaskHoldsInHardwareAndReplaysOnUnmask) {
  EnvRig r;
  r.env->mask_vector();
  EXPECT_TRUE(r.env->vector_disabled());
  EXPECT_TRUE(r.vectors.delivery_log.empty()) << "disable_irq_nosync touches no hardware";
  // An interrupt arrives while disabled: now the vector gets masked for real.
  r.env->hold_interrupt(r.env->now());
  ASSERT_EQ(r.vectors.delivery_log.size(), 1u);
  EXPECT_FALSE(r.vectors.delivery_log[0].second);
  r.env->hold_interrupt(r.env->now());
  EXPECT_EQ(r.vectors.delivery_log.size(), 1u) << "masked once";
  r.env->unmask_vector();
  ASSERT_EQ(r.vectors.delivery_log.size(), 2u);
  EXPECT_TRUE(r.vectors.delivery_log[1].second);
  EXPECT_EQ(r.vectors.replays, 1) << "the held interrupt is replayed";
  EXPECT_EQ(r.env->counters().masks, 1u);
  EXPECT_EQ(r.env->counters().unmasks, 1u);
  // Mask and unmask with no interrupt in between: no hardware access at all.
  r.env->mask_vector();
  r.env->unmask_vector();
  EXPECT_EQ(r.vectors.delivery_log.size(), 2u);
  EXPECT_EQ(r.vectors.replays, 1);
}

TEST(HwQueueEnv, StrayCqeIsCountedNotCompleted) {
  EnvRig r;
  // A command the table does not know (cid 9) reaches the controller directly.
  nvme::Sqe s = nvme::rw(nvme::io::kRead, 1, 0, 8);
  s.cid = 9;
  r.bufs->fill_prps(s, 0);
  r.q->submit(s);
  r.q->ring_sq_doorbell();
  EXPECT_EQ(r.env->drain(), 1u);
  EXPECT_EQ(r.env->recorder().stray_cqes(), 1u);
  EXPECT_EQ(r.env->recorder().completed(), 0u);
}

TEST(QueueRunner, IrqPolicyCompletesIoOnRealThreadsAndEventfds) {
  EnvRig r;
  policy::IrqPolicy p;
  QueueRunner<policy::IrqPolicy> runner(*r.env, p, &r.vectors);
  runner.start();
  constexpr int kTotal = 200;
  int submitted = 0;
  {
    std::unique_lock lock(r.env->mutex());
    while (r.env->recorder().completed() < kTotal) {
      while (submitted < kTotal && r.env->submitter().outstanding() < 4 && r.env->submitter().can_submit()) {
        r.env->submitter().submit(trace::Op::read, uint64_t(submitted) * 8, 8);
        ++submitted;
      }
      r.env->submitter().ring_doorbell();
      r.env->completion_wait().wait(lock, Duration::ms(100));
    }
  }
  runner.stop();
  EXPECT_EQ(r.env->recorder().completed(), uint64_t(kTotal));
  EXPECT_GE(r.env->counters().irq_useful, 1u);
  EXPECT_EQ(r.env->recorder().irqs().size(), r.env->counters().irq_useful + r.env->counters().irq_spurious);
}

}  // namespace
}  // namespace nvmesim::hw
