// The CPU core model on its own: strict priority between contexts with preemption, a
// preempted segment resuming with what it had left, round robin within a context, and
// per-context time accounting. Segments cost what the test says.
#include "models/host/cpu_core.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace nvmesim {
namespace {

// The core's owner: each task's segments cost `cost[index]`; a task runs `segments`
// segments and then sleeps. Records every interval a task ran.
struct Owner {
  sim::EventQueue eq;
  std::map<uint32_t, Duration> cost;
  std::map<uint32_t, int> segments;  // left to run, per task index
  std::vector<std::string> ran;
  Task* wake_on_begin = nullptr;     // made runnable while a segment is being planned
  Core* core = nullptr;

  static Duration begin(void* self, Task& t) {
    auto* o = static_cast<Owner*>(self);
    if (o->wake_on_begin) {
      Task* w = o->wake_on_begin;
      o->wake_on_begin = nullptr;
      o->core->make_runnable(*w);
    }
    return o->cost[t.index];
  }
  std::map<uint32_t, Duration> pollutes;  // debt a task's segment leaves on the core
  static bool end(void* self, Task& t) {
    auto* o = static_cast<Owner*>(self);
    if (auto p = o->pollutes.find(t.index); p != o->pollutes.end()) o->core->add_pollution(p->second);
    return --o->segments[t.index] > 0;
  }
  static void on_ran(void* self, const Task& t, Time start, Time end) {
    static_cast<Owner*>(self)->ran.push_back(std::to_string(t.index) + "@" + std::to_string(start.ns()) + "-" +
                                             std::to_string(end.ns()));
  }
};

struct CpuCoreTest : ::testing::Test {
  Owner o;
  Core core{o.eq, CoreOwner{&o, &Owner::begin, &Owner::end}, 0};
  CpuCoreTest() {
    o.core = &core;
    core.set_tracer(&o, &Owner::on_ran);
  }
  Task task(Context c, uint32_t index, int64_t cost_ns, int segments = 1) {
    o.cost[index] = Duration::ns(cost_ns);
    o.segments[index] = segments;
    return Task::make(c, index, 0);
  }
  // Makes `t` runnable at time `at`.
  void wake_at(int64_t at, Task& t) {
    wakes_.push_back({this, &t});
    o.eq.schedule(Time::from_ns(at), &CpuCoreTest::on_wake, &wakes_.back());
  }

 private:
  struct Wake {
    CpuCoreTest* test;
    Task* task;
  };
  static void on_wake(void* w, uint64_t) {
    auto* wake = static_cast<Wake*>(w);
    wake->test->core.make_runnable(*wake->task);
  }
  std::deque<Wake> wakes_;
};

TEST_F(CpuCoreTest, AHigherContextPreemptsAndThePreemptedSegmentResumesWithItsRemainder) {
  Task app = task(Context::app, 1, 100);
  Task irq = task(Context::hardirq, 2, 20);
  core.make_runnable(app);
  wake_at(30, irq);
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-30", "2@30-50", "1@50-120"}));
  EXPECT_EQ(core.busy(Context::app), Duration::ns(100));
  EXPECT_EQ(core.busy(Context::hardirq), Duration::ns(20));
  EXPECT_TRUE(core.idle());
}

TEST_F(CpuCoreTest, ALowerOrEqualContextWaitsForTheSegmentBoundary) {
  Task irq = task(Context::hardirq, 1, 50);
  Task softirq = task(Context::softirq, 2, 10);
  Task other_irq = task(Context::hardirq, 3, 10);
  core.make_runnable(irq);
  wake_at(10, softirq);
  wake_at(20, other_irq);
  o.eq.run_until(Time::from_ns(1000));
  // The second hard IRQ goes before the softirq that was raised first: strict priority.
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-50", "3@50-60", "2@60-70"}));
}

TEST_F(CpuCoreTest, TasksOfOneContextTakeTurnsAtSegmentBoundaries) {
  Task a = task(Context::app, 1, 10, 2);
  Task b = task(Context::app, 2, 10, 2);
  core.make_runnable(a);
  core.make_runnable(b);
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-10", "2@10-20", "1@20-30", "2@30-40"}));
}

TEST_F(CpuCoreTest, AWakeUpWhileASegmentIsPlannedPreemptsItAtOnce) {
  Task app = task(Context::app, 1, 100);
  Task thread = task(Context::irq_thread, 2, 5);
  o.wake_on_begin = &thread;  // the app's segment wakes an IRQ thread as it starts
  core.make_runnable(app);
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-0", "2@0-5", "1@5-105"}));
  EXPECT_EQ(core.busy(Context::irq_thread), Duration::ns(5));
  EXPECT_EQ(core.busy(Context::app), Duration::ns(100));
}

TEST_F(CpuCoreTest, FlushingAccountsTheRunningSegmentUpToNow) {
  Task app = task(Context::app, 1, 100);
  core.make_runnable(app);
  o.eq.run_until(Time::from_ns(40));
  EXPECT_EQ(core.busy(Context::app), Duration::zero());  // accounted at switches
  core.flush_accounting();
  EXPECT_EQ(core.busy(Context::app), Duration::ns(40));
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(core.busy(Context::app), Duration::ns(100));  // nothing counted twice
  EXPECT_EQ(core.busy(Context::softirq), Duration::zero());
}

TEST_F(CpuCoreTest, MakingAQueuedTaskRunnableAgainChangesNothing) {
  Task app = task(Context::app, 1, 10);
  core.make_runnable(app);
  core.make_runnable(app);
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-10"}));
}

// Issue 10, item 1: an interrupt's indirect cost is paid after it, by the task it
// interrupted, not inside the handler.
TEST_F(CpuCoreTest, TheInterruptedTaskPaysTheHandlersPollutionWhenItResumes) {
  Task app = task(Context::app, 1, 100);
  Task irq = task(Context::hardirq, 2, 20);
  o.pollutes[2] = Duration::ns(50);
  core.make_runnable(app);
  wake_at(30, irq);
  o.eq.run_until(Time::from_ns(1000));
  // 70 left of the app's segment, plus the 50 it owes.
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-30", "2@30-50", "1@50-170"}));
  EXPECT_EQ(core.busy(Context::hardirq), Duration::ns(20));
  EXPECT_EQ(core.busy(Context::app), Duration::ns(150));
  EXPECT_EQ(core.pollution(), Duration::zero());
}

TEST_F(CpuCoreTest, PollutionFromSeveralInterruptsIsOwedOnceAndInterruptContextsDoNotPayIt) {
  Task app = task(Context::app, 1, 100);
  Task irq_a = task(Context::hardirq, 2, 10);
  Task irq_b = task(Context::hardirq, 3, 10);
  Task softirq = task(Context::softirq, 4, 10);
  o.pollutes[2] = Duration::ns(50);
  o.pollutes[3] = Duration::ns(40);
  core.make_runnable(app);
  wake_at(30, irq_a);
  wake_at(30, irq_b);
  wake_at(30, softirq);
  o.eq.run_until(Time::from_ns(1000));
  // The softirq after the handlers pays nothing; the app owes the larger debt, once.
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-30", "2@30-40", "3@40-50", "4@50-60", "1@60-180"}));
}

TEST_F(CpuCoreTest, AnIrqThreadAlsoPaysPollution) {
  Task thread = task(Context::irq_thread, 1, 10);
  Task irq = task(Context::hardirq, 2, 10);
  o.pollutes[2] = Duration::ns(30);
  core.make_runnable(irq);
  wake_at(5, thread);
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"2@0-10", "1@10-50"}));
}

// Issue 10, item 6: a task that blocks switches out; a core with nothing to run enters
// idle, and what runs next waits for the rest of the entry or pays the C-state exit.
TEST_F(CpuCoreTest, SwitchOutIdleEntryAndIdleExitAreTimeOnTheCore) {
  core.set_costs(CoreCosts{Duration::ns(7), Duration::ns(11), Duration::ns(13)});
  Task app = task(Context::app, 1, 10);
  Task irq = task(Context::hardirq, 2, 5);
  core.make_runnable(app);  // cores start idle: the first segment pays the exit
  wake_at(30, irq);         // the app blocked at 23: switch-out to 30, idle entry to 41
  wake_at(100, irq);        // idle since 57: C-state exit
  o.eq.run_until(Time::from_ns(1000));
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-23", "2@30-46", "2@100-118"}));
}

TEST_F(CpuCoreTest, TheNextTaskPaysTheSwitchOutOfTheOneThatBlocked) {
  core.set_costs(CoreCosts{Duration::ns(7), Duration::zero(), Duration::zero()});
  Task a = task(Context::app, 1, 10);
  Task b = task(Context::app, 2, 10);
  Task irq = task(Context::hardirq, 3, 10);
  core.make_runnable(a);
  core.make_runnable(b);
  wake_at(50, irq);
  o.eq.run_until(Time::from_ns(1000));
  // b pays a's switch-out; the interrupt at 50 pays nothing: b's switch-out was over by 34.
  EXPECT_EQ(o.ran, (std::vector<std::string>{"1@0-10", "2@10-27", "3@50-60"}));
}

}  // namespace
}  // namespace nvmesim
