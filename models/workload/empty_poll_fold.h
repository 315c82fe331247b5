// How many passes of an application's polling loop (io_uring IOPOLL) can be folded into the
// pass running now because they are certain to find nothing (issue 13: fewer events per
// I/O). A pass looks at its CQs when it begins; passes repeat back to back at a fixed
// cost while they find nothing, so the folded segment ends exactly where the last folded
// pass would have ended, with the same CPU time. Folding is exact only up to what is known:
//   - `known`: the earliest time something already scheduled changes what a pass sees
//     or counts (a CQE posting the device has scheduled, a measurement window boundary).
//     Its event was scheduled before now, so at an equal time it runs before the folded
//     segment's end as it ran before the pass's own end: passes that begin before it are
//     folded and the segment may end at it or at the first pass boundary after it.
//   - `unknown`: the earliest time something not yet scheduled can (a command whose unit
//     is still in service posts no earlier). Its event would be scheduled after now, so
//     at an equal time its order against a pass end is not known here: the segment must
//     end strictly before it, and so must every folded pass begin.
// Every pass then sees what it saw unfolded. What can differ is the order of events at the
// same nanosecond: the folded segment's end event is scheduled when the fold starts, not
// when its last pass would have begun, so among events due at that instant it may run
// earlier than the pass's own end did (the event queue orders equal times by scheduling
// order). Where another core's event at that instant touches the same drive (a doorbell:
// the drive's arbitration order, and with it which command draws which service time),
// the run goes on as with a different but equally valid tie-break. docs/performance.md
// shows how rarely that happens and that the metrics move within their run-to-run noise.
#pragma once

#include <algorithm>
#include <cstdint>

#include "vocab/time.h"

namespace nvmesim {

// Passes that begin at `next`, next + pass, next + 2 pass, ... and can be folded, given
// the bounds above; 0 when `pass` is not positive.
inline uint64_t foldable_empty_passes(Time next, Duration pass, Time known, Time unknown) {
  const int64_t c = pass.count_ns();
  if (c <= 0) return 0;
  // Folded pass i (0-based) begins at next + i c: before `known`, and the segment's end
  // (the begin of the first pass not folded) before `unknown`.
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const int64_t to_known = (known - next).count_ns();
  const int64_t to_unknown = (unknown - next).count_ns();
  if (to_known <= 0 || to_unknown <= 0) return 0;
  const int64_t by_known = ceil_div(to_known, c);        // begins strictly before `known`
  const int64_t by_unknown = ceil_div(to_unknown, c) - 1;  // next + k c < unknown
  return static_cast<uint64_t>(std::max<int64_t>(0, std::min(by_known, by_unknown)));
}

}  // namespace nvmesim
