// The recorder on its own: what counts as measured, errors, the cap on trace rows.
#include "hw/runner/results/queue_recorder.h"

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

const CommandTable kNoneOutstanding(8);

TEST(QueueRecorder, MeasuresOnlyCommandsSubmittedAndSeenInTheWindow) {
  QueueRecorder rec(3, Time::zero() + Duration::us(10), Time::zero() + Duration::us(100), 16);
  const Time t0 = Time::zero();
  rec.completion(0, submitted_at(t0 + Duration::us(5)), 0, t0 + Duration::us(20), Time::never(),
                 trace::Context::app, kNoneOutstanding);  // warm-up: submitted before the window
  rec.completion(1, submitted_at(t0 + Duration::us(30)), 0, t0 + Duration::us(32), Time::never(),
                 trace::Context::hardirq, kNoneOutstanding);
  rec.completion(2, submitted_at(t0 + Duration::us(90)), 0x2, t0 + Duration::us(120), Time::never(),
                 trace::Context::app, kNoneOutstanding);  // seen after the window, and an error
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
                   trace::Context::app, kNoneOutstanding);
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

// Four commands outstanding (the last not yet covered by a doorbell), a cap of two rows.
struct FourOutstanding {
  CommandTable table{8};
  FourOutstanding() {
    for (int i = 0; i < 4; ++i) {
      uint16_t cid = table.acquire();
      OutstandingCommand& r = table.at(cid);
      r = submitted_at(Time::zero() + Duration::us(1 + i));
      r.doorbell = i < 3 ? Time::zero() + Duration::us(5) : Time::never();
    }
  }
  // The reaper consumes `cid`'s CQE at `seen_us`: released from the table, then recorded.
  void complete(QueueRecorder& rec, uint16_t cid, int64_t seen_us) {
    OutstandingCommand r = table.at(cid);
    table.release(cid);
    rec.completion(cid, r, 0, Time::zero() + Duration::us(seen_us), Time::never(), trace::Context::app, table);
  }
};

TEST(QueueRecorder, TheCommandsInFlightWhenTheTraceFillsBecomeItsInflightRows) {
  QueueRecorder rec(2, Time::zero(), Time::never(), 2);
  FourOutstanding q;
  q.complete(rec, 0, 10);
  q.complete(rec, 1, 10);
  EXPECT_TRUE(rec.inflight().empty());
  q.complete(rec, 2, 12);  // over the cap: the window closes at 12 us with cids 2 and 3 in flight
  EXPECT_EQ(rec.commands().size(), 2u);
  ASSERT_EQ(rec.inflight().size(), 2u);
  const trace::InflightRecord& a = rec.inflight()[0];
  const trace::InflightRecord& b = rec.inflight()[1];
  EXPECT_EQ(a.queue, 2u);
  EXPECT_EQ(a.cid, 2u);
  EXPECT_EQ(b.cid, 3u);
  EXPECT_EQ(a.at, Time::zero() + Duration::us(12));
  EXPECT_EQ(b.at, a.at);
  EXPECT_EQ(a.submit, Time::zero() + Duration::us(3));
  EXPECT_EQ(a.doorbell, Time::zero() + Duration::us(5));
  EXPECT_FALSE(b.doorbell.has_value());  // not rung when the window closed
  EXPECT_FALSE(a.cqe_posted.has_value());  // the host cannot see a posting
  EXPECT_FALSE(a.unit_done.has_value());
  // Later completions and the end of the run add nothing: the window closed once.
  q.complete(rec, 3, 20);
  rec.close_trace(Time::zero() + Duration::us(30), q.table);
  EXPECT_EQ(rec.inflight().size(), 2u);
  EXPECT_EQ(rec.trace_dropped(), 2u);
  EXPECT_EQ(rec.completed(), 4u);
}

TEST(QueueRecorder, CommandsLeftOutstandingAtTheEndOfTheRunAreInflightRows) {
  QueueRecorder rec(1, Time::zero(), Time::never(), 16);
  FourOutstanding q;
  q.complete(rec, 1, 10);
  rec.close_trace(Time::zero() + Duration::us(50), q.table);
  EXPECT_EQ(rec.commands().size(), 1u);
  ASSERT_EQ(rec.inflight().size(), 3u);
  EXPECT_EQ(rec.inflight()[0].cid, 0u);
  EXPECT_EQ(rec.inflight()[1].cid, 2u);
  EXPECT_EQ(rec.inflight()[2].cid, 3u);
  for (const auto& f : rec.inflight()) EXPECT_EQ(f.at, Time::zero() + Duration::us(50));
  EXPECT_EQ(rec.trace_dropped(), 0u);
}

}  // namespace
}  // namespace nvmesim::hw
