// One CPU core: runnable tasks in four priority levels (hard IRQ, softirq, real-time IRQ
// threads, application threads), strict priority with preemption, round-robin within a
// level at segment boundaries. A task runs in segments: the owner says at the start of a
// segment what it costs, and is told when it ends. A preempted segment resumes later
// with its remaining time. Time is accounted per level, exactly, at every switch.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>

#include "sim/event_queue.h"
#include "vocab/context.h"
#include "vocab/time.h"

namespace nvmesim {

// A schedulable entity: its context is both its priority level and what it is (a job's
// thread, a queue's hard IRQ or IRQ thread, a core's softirq).
struct Task {
  static Task make(Context context, uint32_t index, uint32_t core) {
    Task t;
    t.context = context;
    t.index = index;
    t.core = core;
    return t;
  }
  Context context = Context::app;
  uint32_t index = 0;  // job, queue or core index, by context
  uint32_t core = 0;
  bool queued = false;     // in a run queue or running
  bool preempted = false;  // resumes with `remaining`
  bool woken = false;      // next segment pays a context switch
  bool timer_irq = false;  // a core's local timer interrupt (hard IRQ, index = core)
  bool ksoftirqd = false;  // an app-level task that runs softirq work (index: its core)
  bool folded = false;     // its segment folds several polling passes: nothing else may run here meanwhile
  // The level its CPU time is counted in: ksoftirqd's work is softirq time.
  Context accounted() const { return ksoftirqd ? Context::softirq : context; }
  Duration remaining;
  Task* next = nullptr;
};

// What a core asks of the machine it belongs to (the System), without virtual calls.
struct CoreOwner {
  void* self = nullptr;
  Duration (*begin)(void* self, Task& t) = nullptr;  // cost of the segment starting now
  bool (*end)(void* self, Task& t) = nullptr;         // true: task stays runnable
  // Optional: told every interval a task actually ran (for traces). Null when not tracing.
  void* tracer = nullptr;
  void (*ran)(void* tracer, const Task& t, Time start, Time end) = nullptr;
};

// What a core pays around its tasks' segments, beyond the segments themselves (issue 10,
// items 1 and 6). All zero: a core runs segments back to back, as the model did before.
struct CoreCosts {
  Duration switch_out;  // a task that blocks, parks or sleeps leaves the core
  Duration idle_entry;  // nothing runnable: the core enters its idle state
  Duration idle_exit;   // C-state exit latency, paid by what runs first after idle
};

class Core {
 public:
  Core(sim::EventQueue& eq, CoreOwner owner, uint32_t id)
      : eq_(&eq), owner_(owner), id_(id), segment_end_(eq.bind(&Core::on_segment_end, this)) {}
  Core(const Core&) = delete;  // its events hold its address
  Core& operator=(const Core&) = delete;

  uint32_t id() const { return id_; }
  bool idle() const { return running_ == nullptr; }
  const Task* running() const { return running_; }
  // When the running segment ends (meaningful while running() is not null).
  Time segment_end() const { return seg_end_; }

  void make_runnable(Task& t);
  // Adds the running segment's time up to now to its level (at window boundaries).
  void flush_accounting();
  Duration busy(Context c) const { return busy_[index(c)]; }
  void set_tracer(void* tracer, void (*ran)(void*, const Task&, Time, Time)) {
    owner_.tracer = tracer;
    owner_.ran = ran;
  }
  void set_costs(const CoreCosts& costs) { costs_ = costs; }

  // An interrupt's indirect cost (cache, TLB and branch-predictor pollution), owed by the
  // next application or IRQ-thread segment to run here -- the interrupted task resuming,
  // or whatever runs next -- not by the handler. The debt does not add up over several
  // interrupts before a task runs: it is the refill of the task's working set that
  // handlers evicted, and back-to-back handlers evict the same lines (their own code and
  // data), so a cache is cold only once. It is the largest of the debts owed.
  void add_pollution(Duration d) { pollution_ = max(pollution_, d); }
  Duration pollution() const { return pollution_; }
  // What the segment being planned pays before its own work starts (its owner plans the
  // work as starting that much later).
  Duration segment_overhead() const { return segment_overhead_; }

 private:
  struct Fifo {
    Task* head = nullptr;
    Task* tail = nullptr;
  };
  static void on_segment_end(void* self, uint64_t gen);
  void push_back(Task& t);
  void push_front(Task& t);
  void dispatch();
  void preempt_for(Context context);
  // What the segment of `t` starting now pays before its own work: pollution owed,
  // a switch-out left by the task before, the rest of an idle entry or a C-state exit.
  Duration overhead_before(const Task& t);
  void go_idle();

  sim::EventQueue* eq_;
  CoreOwner owner_;
  uint32_t id_;
  sim::EventQueue::Bound segment_end_;  // on_segment_end on this core
  std::array<Fifo, kContexts> rq_{};
  Task* running_ = nullptr;
  Time seg_start_;
  Time seg_end_;
  uint64_t gen_ = 0;
  bool in_end_ = false;
  bool in_begin_ = false;
  bool check_preempt_ = false;
  std::array<Duration, kContexts> busy_{};
  CoreCosts costs_;
  Duration pollution_;
  Duration segment_overhead_;
  Duration switch_out_owed_;  // the task that just left the core still switching out
  bool in_idle_ = true;       // cores start idle
  Time idle_reached_;         // when the idle entry is (or was) complete
};

}  // namespace nvmesim
