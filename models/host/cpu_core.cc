#include "models/host/cpu_core.h"

namespace nvmesim {

void Core::push_back(Task& t) {
  Fifo& f = rq_[index(t.context)];
  t.next = nullptr;
  if (f.tail) f.tail->next = &t; else f.head = &t;
  f.tail = &t;
}

void Core::push_front(Task& t) {
  Fifo& f = rq_[index(t.context)];
  t.next = f.head;
  f.head = &t;
  if (!f.tail) f.tail = &t;
}

void Core::make_runnable(Task& t) {
  if (t.queued) return;
  // A folded polling segment stands for passes that nothing could interrupt; a task
  // woken here meanwhile means the job was wrongly found to be alone on this core.
  assert(!(running_ && running_->folded) && "a task woke on a core running folded polling passes");
  t.queued = true;
  push_back(t);
  if (in_begin_) {
    // Woken by the segment being planned right now: preempt once it is planned.
    check_preempt_ = true;
    return;
  }
  preempt_for(t.context);
  if (!running_ && !in_end_) dispatch();
}

void Core::preempt_for(Context context) {
  if (running_ && preempts(context, running_->context)) {
    // Preempt: the running segment keeps what it has left and goes first in its level.
    Time now = eq_->now();
    busy_[index(running_->accounted())] += now - seg_start_;
    if (owner_.ran) owner_.ran(owner_.tracer, *running_, seg_start_, now);
    running_->remaining = seg_end_ - now;
    running_->preempted = true;
    push_front(*running_);
    running_ = nullptr;
    ++gen_;
  }
}

Duration Core::overhead_before(const Task& t) {
  Duration cost;
  if (in_idle_) {
    // Woken during the idle entry: the entry completes first; after it: C-state exit.
    in_idle_ = false;
    const Time now = eq_->now();
    cost += now < idle_reached_ ? idle_reached_ - now : costs_.idle_exit;
  }
  cost += switch_out_owed_;
  switch_out_owed_ = Duration::zero();
  if (t.context == Context::app || t.context == Context::irq_thread) {
    cost += pollution_;
    pollution_ = Duration::zero();
  }
  return cost;
}

void Core::go_idle() {
  if (in_idle_) return;
  in_idle_ = true;
  idle_reached_ = eq_->now() + switch_out_owed_ + costs_.idle_entry;
  switch_out_owed_ = Duration::zero();
}

void Core::dispatch() {
  for (auto& f : rq_) {
    if (!f.head) continue;
    Task* t = f.head;
    f.head = t->next;
    if (!f.head) f.tail = nullptr;
    t->next = nullptr;
    running_ = t;
    segment_overhead_ = overhead_before(*t);
    Duration cost = segment_overhead_;
    if (t->preempted) {
      t->preempted = false;
      cost += t->remaining;
    } else {
      in_begin_ = true;
      cost += owner_.begin(owner_.self, *t);
      in_begin_ = false;
    }
    assert(cost >= Duration::zero());
    seg_start_ = eq_->now();
    seg_end_ = seg_start_ + cost;
    eq_->schedule(seg_end_, segment_end_, ++gen_);
    if (check_preempt_) {
      check_preempt_ = false;
      for (int l = 0; l < index(t->context); ++l) {
        if (rq_[l].head) {
          preempt_for(static_cast<Context>(l));
          dispatch();
          break;
        }
      }
    }
    return;
  }
  go_idle();
}

void Core::on_segment_end(void* self, uint64_t gen) {
  auto* c = static_cast<Core*>(self);
  if (gen != c->gen_ || !c->running_) return;  // preempted meanwhile
  Task* t = c->running_;
  c->busy_[index(t->accounted())] += c->eq_->now() - c->seg_start_;
  if (c->owner_.ran) c->owner_.ran(c->owner_.tracer, *t, c->seg_start_, c->eq_->now());
  c->running_ = nullptr;
  ++c->gen_;
  // Tasks woken by this segment's effects are queued, not dispatched, until it is done,
  // so the highest level wins the core even when it is this very task.
  c->in_end_ = true;
  bool again = c->owner_.end(c->owner_.self, *t);
  c->in_end_ = false;
  if (again) {
    c->push_back(*t);
  } else {
    t->queued = false;
    // A task (not an interrupt) that stops here blocks, parks or sleeps: it switches out.
    if (t->context == Context::app || t->context == Context::irq_thread) c->switch_out_owed_ = c->costs_.switch_out;
  }
  c->dispatch();
}

void Core::flush_accounting() {
  if (!running_) return;
  Time now = eq_->now();
  busy_[index(running_->accounted())] += now - seg_start_;
  if (owner_.ran) owner_.ran(owner_.tracer, *running_, seg_start_, now);
  seg_start_ = now;
}

}  // namespace nvmesim
