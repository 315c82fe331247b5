// Where in its range an hrtimer range sleep (usleep_range(d, d + slack)) ends, as the
// host profile's timer_slack says (issue 10, item 3). Linux 6.3 ("hrtimer: Ignore slack
// time for RT tasks in schedule_hrtimeout_range()", backported to the 5.10, 5.15 and 6.1
// stable series) gives RT tasks no slack: an IRQ thread is SCHED_FIFO, so it wakes at d.
// A lone range timer of an ordinary task fires at its hard expiry, d + slack, unless
// another timer expiring inside the range takes it along.
#pragma once

#include <cstdint>

#include "sim/rng.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

// How long after `d` the sleep of `d` with `slack_pct`% slack ends; `rt`: the sleeper is
// a real-time task. Draws from `rng` only for uniform_in_range.
inline Duration range_sleep_slack(TimerSlack mode, Duration d, uint32_t slack_pct, bool rt, sim::Rng& rng) {
  const int64_t slack = d.count_ns() * slack_pct / 100;
  switch (mode) {
    case TimerSlack::uniform_in_range:
      return Duration::ns(static_cast<int64_t>(rng.uniform() * static_cast<double>(slack)));
    case TimerSlack::rt_ignores_slack:
      return rt ? Duration::zero() : Duration::ns(slack);
    case TimerSlack::hard_expiry:
      return Duration::ns(slack);
  }
  return Duration::zero();
}

}  // namespace nvmesim
