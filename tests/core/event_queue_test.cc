#include "sim/event_queue.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace nvmesim::sim
