// The execution contexts of the host completion path, in the kernel's priority order:
// hard IRQ, softirq (hrtimers, irq_poll), real-time IRQ threads, the application. One
// enum for the CPU model (priority, accounting), the trace's "completed_by" and the hw
// runner, so a context means the same thing everywhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace nvmesim {

enum class Context : uint8_t {
  hardirq = 0,
  softirq = 1,
  irq_thread = 2,
  app = 3,
};
constexpr int kContexts = 4;

constexpr int index(Context c) { return static_cast<int>(c); }

// Higher priority preempts lower: a smaller value wins the core.
constexpr bool preempts(Context a, Context b) { return index(a) < index(b); }

// The word the per-command trace uses for a context.
constexpr std::string_view trace_name(Context c) {
  switch (c) {
    case Context::hardirq: return "irq";
    case Context::softirq: return "timer";
    case Context::irq_thread: return "thread";
    case Context::app: return "app";
  }
  return "?";
}

}  // namespace nvmesim
