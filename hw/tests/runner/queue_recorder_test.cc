// The recorder on its own: what counts as measured, errors, the cap on trace rows.
#include "hw/runner/queue_recorder.h"

#include <gtest/gtest.h>

namespace nvmesim::hw {
namespace {

OutstandingCommand submitted_at(Time t) {
  OutstandingCommand r;
  r.busy = true;
  r.op = trace::Op::read;
  r.lba = 64;
  r.blocks = 8;
  r.submit = t;
  r.doorbell = t;
  return r;
}

TEST(QueueRecorder, MeasuresOnlyCommandsSubmittedAndSeenInTheWindow) {
  QueueRecorder rec(3, Time::zero() + Duration::us(10), Time::zero() + Duration::us(100), 16);
  const Time t0 = Time::zero();
  rec.completion(0, submitted_at(t0 + Duration::us(5)), 0, t0 + Duration::us(20), Time::never(),
                 trace::Context::app);  // warm-up: submitted before the window
  rec.completion(1, submitted_at(t0 + Duration::us(30)), 0, t0 + Duration::us(32), Time::never(),
                 trace::Context::hardirq);
  rec.completion(2, submitted_at(t0 + Duration::us(90)), 0x2, t0 + Duration::us(120), Time::never(),
                 trace::Context::app);  // seen after the window, and an error
  EXPECT_EQ(rec.completed(), 3u);
  EXPECT_EQ(rec.measured_completions(), 1u);
  EXPECT_EQ(rec.latency().count(), 1u);
  EXPECT_EQ(rec.errors(), 1u);
  ASSERT_EQ(rec.commands().size(), 3u);
  EXPECT_EQ(rec.commands()[1].queue, 3u);
  EXPECT_EQ(rec.commands()[1].cid, 1u);
  EXPECT_EQ(rec.commands()[1].completed_by, trace::Context::hardirq);
  EXPECT_EQ(rec.commands()[2].status, 0x2u);
}

TEST(QueueRecorder, TraceRowsAreCappedPerKindAndTheRestCounted) {
  QueueRecorder rec(1, Time::zero(), Time::never(), 2);
  for (uint16_t cid = 0; cid < 5; ++cid)
    rec.completion(cid, submitted_at(Time::zero()), 0, Time::zero() + Duration::us(1), Time::never(),
                   trace::Context::app);
  rec.interrupt(Time::zero(), 1);
  rec.held_interrupt(Time::zero());
  rec.held_interrupt(Time::zero());
  for (int i = 0; i < 3; ++i) rec.mode_change(Time::zero(), "irq", "poll", "test");
  EXPECT_EQ(rec.completed(), 5u);
  EXPECT_EQ(rec.commands().size(), 2u);
  EXPECT_EQ(rec.trace_dropped(), 3u);
  ASSERT_EQ(rec.irqs().size(), 2u);  // one interrupt, one held; the second held is over the cap
  EXPECT_FALSE(rec.irqs()[0].held);
  EXPECT_TRUE(rec.irqs()[1].held);
  EXPECT_EQ(rec.interrupts_held(), 2u);  // counted even when its row is not kept
  EXPECT_EQ(rec.modes().size(), 2u);
}

}  // namespace
}  // namespace nvmesim::hw
