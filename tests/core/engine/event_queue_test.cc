#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

namespace nvmesim::sim {
namespace {

struct Log {
  std::vector<std::pair<int64_t, uint64_t>> seen;
  EventQueue* eq;
};
void record(void* ctx, uint64_t arg) {
  auto* log = static_cast<Log*>(ctx);
  log->seen.emplace_back(log->eq->now().ns(), arg);
}

TEST(EventQueue, EqualTimesRunInInsertionOrder) {
  EventQueue eq;
  Log log{{}, &eq};
  for (uint64_t i = 0; i < 100; ++i) eq.schedule(Time::from_ns(50), &record, &log, i);
  eq.run_until(Time::from_ns(100));
  ASSERT_EQ(log.seen.size(), 100u);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(log.seen[i].second, i);
}

TEST(EventQueue, OrdersByTimeThenSequence) {
  EventQueue eq;
  Log log{{}, &eq};
  // A scrambled mix of times, several equal.
  const int64_t times[] = {30, 10, 20, 10, 30, 0, 20, 10, 5, 30};
  for (uint64_t i = 0; i < 10; ++i) eq.schedule(Time::from_ns(times[i]), &record, &log, i);
  eq.run_until(Time::from_ns(1000));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{0, 5}, {5, 8}, {10, 1}, {10, 3}, {10, 7},
                                                           {20, 2}, {20, 6}, {30, 0}, {30, 4}, {30, 9}};
  EXPECT_EQ(log.seen, want);
  EXPECT_EQ(eq.now().ns(), 1000);
}

void reschedule_same_time(void* ctx, uint64_t arg) {
  auto* log = static_cast<Log*>(ctx);
  record(ctx, arg);
  if (arg < 3) log->eq->schedule(log->eq->now(), &reschedule_same_time, ctx, arg + 10);
}

TEST(EventQueue, EventsScheduledForNowRunAfterThoseAlreadyDue) {
  EventQueue eq;
  Log log{{}, &eq};
  eq.schedule(Time::from_ns(7), &reschedule_same_time, &log, 0);
  eq.schedule(Time::from_ns(7), &record, &log, 1);
  eq.run_until(Time::from_ns(7));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{7, 0}, {7, 1}, {7, 10}};
  EXPECT_EQ(log.seen, want);
}

TEST(EventQueue, RunUntilLeavesLaterEventsPending) {
  EventQueue eq;
  Log log{{}, &eq};
  eq.schedule(Time::from_ns(10), &record, &log, 1);
  eq.schedule(Time::from_ns(11), &record, &log, 2);
  eq.run_until(Time::from_ns(10));
  EXPECT_EQ(log.seen.size(), 1u);
  EXPECT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq.next_time().ns(), 11);
}

// Many (handler, context) pairs (the table grows) and a scrambled mix of times, some
// scheduled for now from inside handlers (the current run of the wheel): the order is
// exactly (time, scheduling order), as a stable sort of the same events gives it.
struct Ctx {
  std::vector<std::pair<int64_t, uint64_t>>* seen;
  EventQueue* eq;
  uint64_t id;
};
void record_ctx(void* ctx, uint64_t arg) {
  auto* c = static_cast<Ctx*>(ctx);
  c->seen->emplace_back(c->eq->now().ns(), arg);
}
void record_ctx_and_now(void* ctx, uint64_t arg) {
  auto* c = static_cast<Ctx*>(ctx);
  c->seen->emplace_back(c->eq->now().ns(), arg);
  if (arg % 3 == 0) c->eq->schedule(c->eq->now(), &record_ctx, ctx, arg + 1000000);
}

TEST(EventQueue, ManyHandlersAndScrambledTimesKeepTimeThenSequenceOrder) {
  EventQueue eq;
  std::vector<std::pair<int64_t, uint64_t>> seen;
  std::vector<Ctx> ctxs(3000);
  for (uint64_t i = 0; i < ctxs.size(); ++i) ctxs[i] = Ctx{&seen, &eq, i};
  std::vector<std::pair<int64_t, uint64_t>> scheduled;
  uint64_t x = 12345;
  for (uint64_t i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto t = static_cast<int64_t>((x >> 33) % 500);
    const bool spawns = i % 2 == 0;
    eq.schedule(Time::from_ns(t), spawns ? &record_ctx_and_now : &record_ctx, &ctxs[(x >> 20) % ctxs.size()], i);
    scheduled.emplace_back(t, i);
  }
  eq.run_until(Time::from_ns(1000));
  // Expected: stable by time; each spawning event (even i, i % 3 == 0) is followed, after
  // every event already due at that time, by its child.
  std::stable_sort(scheduled.begin(), scheduled.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int64_t, uint64_t>> want;
  for (std::size_t k = 0; k < scheduled.size();) {
    std::size_t e = k;
    std::vector<std::pair<int64_t, uint64_t>> children;
    while (e < scheduled.size() && scheduled[e].first == scheduled[k].first) {
      want.push_back(scheduled[e]);
      if (scheduled[e].second % 2 == 0 && scheduled[e].second % 3 == 0)
        children.emplace_back(scheduled[e].first, scheduled[e].second + 1000000);
      ++e;
    }
    want.insert(want.end(), children.begin(), children.end());
    k = e;
  }
  EXPECT_EQ(seen, want);
  EXPECT_TRUE(eq.empty());
}

TEST(EventQueue, AnEventForNowGoesAfterThoseAlreadyDueAndBeforeLaterOnes) {
  EventQueue eq;
  Log log{{}, &eq};
  eq.schedule(Time::from_ns(5), &reschedule_same_time, &log, 2);  // spawns 12 at 5
  eq.schedule(Time::from_ns(6), &record, &log, 3);
  eq.run_until(Time::from_ns(5));
  EXPECT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq.next_time().ns(), 6);
  eq.schedule(Time::from_ns(5), &record, &log, 4);  // for now, before the one at 6
  EXPECT_EQ(eq.next_time().ns(), 5);
  eq.run_until(Time::from_ns(10));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{5, 2}, {5, 12}, {5, 4}, {6, 3}};
  EXPECT_EQ(log.seen, want);
  EXPECT_EQ(eq.dispatched(), 4u);
}

TEST(EventQueue, AnEventScheduledWithATakenSequenceNumberRunsWhereItWouldHave) {
  EventQueue eq;
  Log log{{}, &eq};
  const uint64_t early = eq.take_seq();                // taken first...
  eq.schedule(Time::from_ns(20), &record, &log, 1);     // ...then one scheduled at once
  const uint64_t skipped = eq.take_seq();               // taken and never used
  (void)skipped;
  eq.schedule(Time::from_ns(20), &record, &log, 2);
  eq.schedule_taken(Time::from_ns(20), early, &record, &log, 0);  // scheduled last, runs first
  eq.run_until(Time::from_ns(30));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{20, 0}, {20, 1}, {20, 2}};
  EXPECT_EQ(log.seen, want);
}

// has_run answers for an event kept back (its sequence number taken, never scheduled) as
// if it had been scheduled: earlier instants have run; at the current one, the events
// before the running one; in the instant's end phase and after run_until, all of them.
struct HasRunProbe {
  EventQueue* eq;
  uint64_t before = 0, after = 0;
  std::vector<std::pair<bool, bool>> seen;  // per look: has (20, before), (20, after) run
};
void probe_at_end(void* ctx) {
  auto* p = static_cast<HasRunProbe*>(ctx);
  p->seen.emplace_back(p->eq->has_run(Time::from_ns(20), p->before), p->eq->has_run(Time::from_ns(20), p->after));
}
void probe(void* ctx, uint64_t end_phase_too) {
  probe_at_end(ctx);
  if (end_phase_too) static_cast<HasRunProbe*>(ctx)->eq->at_instant_end(0, &probe_at_end, ctx);
}

TEST(EventQueue, HasRunAnswersForAnEventKeptBackAsIfItWereScheduled) {
  EventQueue eq;
  HasRunProbe p{&eq, 0, 0, {}};
  eq.schedule(Time::from_ns(10), &probe, &p, 0);
  p.before = eq.take_seq();                         // kept back for 20, before the next
  eq.schedule(Time::from_ns(20), &probe, &p, 1);   // also asks for 20's end phase
  p.after = eq.take_seq();                          // kept back for 20, after it
  eq.schedule(Time::from_ns(20), &probe, &p, 0);
  eq.run_until(Time::from_ns(15));
  EXPECT_FALSE(eq.has_run(Time::from_ns(20), p.before));  // stopped short of 20
  eq.run_until(Time::from_ns(20));
  EXPECT_TRUE(eq.has_run(Time::from_ns(20), p.after));  // run_until ran all of 20
  EXPECT_FALSE(eq.has_run(Time::from_ns(21), 0));
  const std::vector<std::pair<bool, bool>> want = {
      {false, false},  // at 10: neither
      {true, false},   // at 20, between the two kept back
      {true, true},    // at 20, after both
      {true, true},    // 20's end phase: all of 20
  };
  EXPECT_EQ(p.seen, want);
}

// The wheel reaches kWheelReachNs ahead; further events wait in the far tier and
// join the wheel as it comes near them. Equal times across the tiers still run in
// scheduling order: far first (scheduled first), then the one filed in the wheel later,
// and an event with a held-back sequence number before both.
TEST(EventQueue, EventsPastTheWheelsReachKeepTheirOrderWhenTheyJoinIt) {
  EventQueue eq;
  Log log{{}, &eq};
  const int64_t reach = EventQueue::kWheelReachNs;
  const uint64_t held = eq.take_seq();
  eq.schedule(Time::from_ns(reach + 100), &record, &log, 1);      // far
  eq.schedule(Time::from_ns(reach - 1), &record, &log, 2);        // last slot of the wheel
  eq.schedule(Time::from_ns(3 * reach + 7), &record, &log, 3);    // far, a later lap
  eq.run_until(Time::from_ns(reach / 2));                          // the wheel moves on
  eq.schedule(Time::from_ns(reach + 100), &record, &log, 4);      // now within the wheel
  eq.schedule_taken(Time::from_ns(reach + 100), held, &record, &log, 0);
  eq.schedule(Time::from_ns(3 * reach + 7), &record, &log, 5);    // far still
  eq.run_until(Time::from_ns(4 * reach));
  const std::vector<std::pair<int64_t, uint64_t>> want = {
      {reach - 1, 2}, {reach + 100, 0}, {reach + 100, 1}, {reach + 100, 4}, {3 * reach + 7, 3}, {3 * reach + 7, 5}};
  EXPECT_EQ(log.seen, want);
  EXPECT_TRUE(eq.empty());
}

// An event exactly one lap of the wheel ahead shares its slot's place in the ring with
// the current slot: it must wait in the far tier, not be taken for the current slot.
TEST(EventQueue, AnEventOneLapAheadWaitsForItsOwnSlot) {
  EventQueue eq;
  Log log{{}, &eq};
  const int64_t lap = EventQueue::kWheelReachNs;
  eq.schedule(Time::from_ns(lap), &record, &log, 1);
  EXPECT_EQ(eq.next_time().ns(), lap);
  eq.schedule(Time::from_ns(10 * EventQueue::kSlotNs), &record, &log, 2);
  eq.schedule(Time::from_ns(lap - 1), &record, &log, 3);
  eq.run_until(Time::from_ns(2 * lap));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{10 * EventQueue::kSlotNs, 2}, {lap - 1, 3}, {lap, 1}};
  EXPECT_EQ(log.seen, want);
}

// run_until stops short of the next event, which may sit in a slot beyond the clock:
// an event scheduled then for an earlier time, in an earlier slot, still runs first.
TEST(EventQueue, AnEventBeforeTheNextPendingOneRunsFirstAfterAStopShort) {
  EventQueue eq;
  Log log{{}, &eq};
  eq.schedule(Time::from_ns(100'000), &record, &log, 1);
  eq.run_until(Time::from_ns(10));
  EXPECT_EQ(eq.next_time().ns(), 100'000);
  eq.schedule(Time::from_ns(10), &record, &log, 2);
  eq.schedule(Time::from_ns(5'000), &record, &log, 3);
  eq.schedule(Time::from_ns(99'999), &record, &log, 4);
  EXPECT_EQ(eq.next_time().ns(), 10);
  eq.run_until(Time::from_ns(200'000));
  const std::vector<std::pair<int64_t, uint64_t>> want = {{10, 2}, {5'000, 3}, {99'999, 4}, {100'000, 1}};
  EXPECT_EQ(log.seen, want);
}

// The queue against a plain ordered set of (time, seq), on the shapes a simulation
// makes: handlers schedule at now, a little later and much later (up to ~2^40 ns, so the
// wheel wraps and the far tier's every bucket is used), some with sequence numbers taken earlier; run_until stops between
// events and more are scheduled between the windows, before the next pending one (the
// current slot may then be past the clock).
struct Model {
  EventQueue eq;
  std::set<std::tuple<int64_t, uint64_t, uint64_t>> want;  // (time, seq, arg) pending
  std::vector<std::pair<int64_t, uint64_t>> seen;
  uint64_t out_of_order = 0;
  std::vector<std::pair<uint64_t, uint64_t>> taken;          // (seq, arg) held back
  uint64_t x = 88172645463325252ull, next_arg = 0, next_seq = 0;
  uint64_t rnd() { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; }
  int64_t delay() {
    switch (rnd() % 6) {
      case 0: return 0;
      case 1: return static_cast<int64_t>(rnd() % 8);
      case 2: return static_cast<int64_t>(rnd() % 2000);
      case 3: return static_cast<int64_t>(rnd() % 200'000);
      case 4: return static_cast<int64_t>(rnd() % (int64_t{1} << 40));
      default: return static_cast<int64_t>(rnd() % 70'000);
    }
  }
  // The set holds exactly what is pending, so the event that runs must be its first.
  static void fire(void* ctx, uint64_t arg) {
    auto* m = static_cast<Model*>(ctx);
    m->seen.emplace_back(m->eq.now().ns(), arg);
    const auto first = m->want.begin();
    if (first == m->want.end() || std::get<0>(*first) != m->eq.now().ns() || std::get<2>(*first) != arg)
      ++m->out_of_order;
    else
      m->want.erase(first);
    const uint64_t n = m->rnd() % 3;  // 0, 1 or 2 children
    for (uint64_t i = 0; i < n && m->next_arg < 60'000; ++i) m->add(m->eq.now().ns() + m->delay());
    if (m->rnd() % 7 == 0 && m->next_arg < 60'000) {  // hold a sequence number back...
      m->taken.emplace_back(m->eq.take_seq(), m->next_arg++);
      ++m->next_seq;
    }
    if (!m->taken.empty() && m->rnd() % 5 == 0) {  // ...and use one later
      auto [seq, a] = m->taken.back();
      m->taken.pop_back();
      const int64_t t = m->eq.now().ns() + m->delay();
      m->eq.schedule_taken(Time::from_ns(t), seq, &fire, m, a);
      m->want.emplace(t, seq, a);
    }
  }
  void add(int64_t t) {
    const uint64_t a = next_arg++;
    eq.schedule(Time::from_ns(t), &fire, this, a);
    want.emplace(t, next_seq++, a);
  }
};

TEST(EventQueue, RunsEventsInTheOrderOfAnOrderedSet) {
  Model m;
  for (int i = 0; i < 200; ++i) m.add(static_cast<int64_t>(m.rnd() % 100'000));
  int64_t end = 0;
  for (int w = 0; w < 400 && !m.eq.empty(); ++w) {
    end += static_cast<int64_t>(m.rnd() % 50'000'000);
    m.eq.run_until(Time::from_ns(end));
    ASSERT_EQ(m.out_of_order, 0u) << "window " << w;
    ASSERT_EQ(m.eq.size(), m.want.size());
    if (!m.want.empty()) {
      ASSERT_GT(std::get<0>(*m.want.begin()), end);
      ASSERT_EQ(m.eq.next_time().ns(), std::get<0>(*m.want.begin()));
    }
    // Between windows: events at the window's end and just after it, before the next
    // pending one.
    if (m.next_arg < 60'000) {
      m.add(end);
      m.add(end + static_cast<int64_t>(m.rnd() % 16));
    }
  }
  EXPECT_GT(m.seen.size(), 10'000u);
}

}  // namespace
}  // namespace nvmesim::sim
