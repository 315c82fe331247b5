// An instant's requests run in the order of their keys, once every event of that instant
// has run (EventQueue::at_instant_end): the order the events happened to run in does not
// show, which is what lets a replay meet a recorded MSI-X line's order.
#include "models/system/same_time_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nvmesim {
namespace {

// What ran: an event ('e') or a request ('r'), its key, and when.
struct Ran {
  char what;
  uint64_t key;
  int64_t at_ns;
  bool operator==(const Ran&) const = default;
};

struct Log {
  sim::EventQueue eq;
  SameTimeOrder order;
  std::vector<Ran> ran;
  static void request(void* self, uint64_t arg) {
    auto* l = static_cast<Log*>(self);
    l->ran.push_back({'r', arg, l->eq.now().ns()});
  }
  static void event(void* self, uint64_t key) {  // an event that makes a request keyed `key`
    auto* l = static_cast<Log*>(self);
    l->ran.push_back({'e', key, l->eq.now().ns()});
    l->order.add(key, &Log::request, l, key);
  }
  static void late(void* self, uint64_t key) {  // ... and one that schedules another at once
    auto* l = static_cast<Log*>(self);
    l->eq.schedule(l->eq.now(), &Log::event, l, key);
  }
};

TEST(SameTimeOrder, AnInstantsRequestsRunByKeyAfterAllOfItsEventsWhateverTheirOrder) {
  for (bool reversed : {false, true}) {
    Log l;
    l.order.bind(&l.eq, 0);
    const Time t = Time::zero() + Duration::ns(100);
    const std::vector<uint64_t> keys = reversed ? std::vector<uint64_t>{3, 1, 2} : std::vector<uint64_t>{2, 1, 3};
    l.eq.schedule(t, &Log::event, &l, keys[0]);
    l.eq.schedule(t, &Log::late, &l, keys[1]);  // its event is scheduled during the instant
    l.eq.schedule(t, &Log::event, &l, keys[2]);
    l.eq.schedule(t + Duration::ns(1), &Log::event, &l, 7);
    l.eq.run_until(t + Duration::ns(10));
    ASSERT_EQ(l.ran.size(), 8u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(l.ran[i].what, 'e');
    EXPECT_EQ(l.ran[3], (Ran{'r', 1, 100}));  // after all three events of the instant, by key
    EXPECT_EQ(l.ran[4], (Ran{'r', 2, 100}));
    EXPECT_EQ(l.ran[5], (Ran{'r', 3, 100}));
    EXPECT_EQ(l.ran[6], (Ran{'e', 7, 101}));
    EXPECT_EQ(l.ran[7], (Ran{'r', 7, 101}));
  }
}

TEST(SameTimeOrder, RunsBeforeAStopInTheMiddleOfARunAndAtTheRunsEnd) {
  Log l;
  l.order.bind(&l.eq, 0);
  l.eq.schedule(Time::zero() + Duration::ns(5), &Log::event, &l, 4);
  l.eq.run_until(Time::zero() + Duration::ns(5));  // the instant's end comes before the stop
  ASSERT_EQ(l.ran.size(), 2u);
  EXPECT_EQ(l.ran[1], (Ran{'r', 4, 5}));
  EXPECT_TRUE(l.eq.empty());
}

// A request made ahead for a later instant (add_at) runs at that instant's end, in key
// order with the requests its events make, as if it had been made at that instant; with
// no event at that instant it still runs there, and it needs no event of its own.
TEST(SameTimeOrder, ARequestMadeAheadRunsInItsInstantsOrderWithOrWithoutEventsThere) {
  Log l;
  l.order.bind(&l.eq, 0);
  const Time t = Time::zero() + Duration::ns(100);
  l.order.add_at(t, 2, &Log::request, &l, 2);                    // with t's events
  l.order.add_at(t + Duration::ns(50), 9, &Log::request, &l, 9);  // alone at its instant
  l.order.add_at(t, 5, &Log::request, &l, 5);
  l.eq.schedule(t, &Log::event, &l, 3);
  l.eq.schedule(t, &Log::late, &l, 1);
  l.eq.schedule(t + Duration::ns(60), &Log::event, &l, 4);
  EXPECT_FALSE(l.eq.empty());
  l.eq.run_until(t + Duration::ns(40));
  const std::vector<Ran> at_t = {{'e', 3, 100}, {'e', 1, 100}, {'r', 1, 100}, {'r', 2, 100}, {'r', 3, 100}, {'r', 5, 100}};
  EXPECT_EQ(l.ran, at_t);
  EXPECT_EQ(l.eq.next_time(), t + Duration::ns(50));
  l.eq.run_until(t + Duration::ns(100));
  ASSERT_EQ(l.ran.size(), 9u);
  EXPECT_EQ(l.ran[6], (Ran{'r', 9, 150}));
  EXPECT_EQ(l.ran[7], (Ran{'e', 4, 160}));
  EXPECT_EQ(l.ran[8], (Ran{'r', 4, 160}));
  EXPECT_EQ(l.eq.dispatched(), 4u);  // the events alone
  EXPECT_TRUE(l.eq.empty());
}

// Two orders (ranks 0 and 1) at one instant, one asked for ahead and one at the instant:
// rank order, as when both are asked for at the instant.
TEST(SameTimeOrder, OrdersAskedForAheadAndAtTheInstantRunByRank) {
  struct Two {
    sim::EventQueue eq;
    SameTimeOrder a, b;
    std::vector<uint64_t> ran;
    static void request(void* self, uint64_t arg) { static_cast<Two*>(self)->ran.push_back(arg); }
    static void event(void* self, uint64_t) {
      auto* w = static_cast<Two*>(self);
      w->a.add(10, &Two::request, w, 10);
    }
  } w;
  w.a.bind(&w.eq, 0);
  w.b.bind(&w.eq, 1);
  const Time t = Time::zero() + Duration::ns(30);
  w.b.add_at(t, 1, &Two::request, &w, 21);
  w.eq.schedule(t, &Two::event, &w, 0);
  w.eq.run_until(t);
  EXPECT_EQ(w.ran, (std::vector<uint64_t>{10, 21}));
}

}  // namespace
}  // namespace nvmesim
