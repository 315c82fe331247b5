// The bytes the benchmark's process has asked for and not yet given back: a count kept by
// the global operator new/delete that counted_heap.cc replaces in sim_benchmark. It is the
// request sizes, not malloc's chunks, so the same run on the same binary gives the same
// figure on any machine, whatever malloc's heap held before or where it mapped a block.
#pragma once

#include <cstddef>

namespace nvmesim::bench {

std::size_t counted_heap_bytes();

}  // namespace nvmesim::bench
