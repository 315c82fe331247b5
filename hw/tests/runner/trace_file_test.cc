// The hw run's trace file (run_results.h, write_trace): the queues' rows merged in time
// order in the simulator's layout, inflight rows included (docs/trace-format.md).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "hw/runner/results/queue_recorder.h"
#include "hw/runner/results/run_results.h"

namespace nvmesim::hw {
namespace {

Time us(int64_t v) { return Time::zero() + Duration::us(v); }

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f(1);
  for (char c : line) {
    if (c == ',') f.emplace_back();
    else f.back() += c;
  }
  return f;
}

// Submits `cid` at `submit_us` (rung at `doorbell_us`, or never when < 0) into `table`.
void submit(CommandTable& table, int64_t submit_us, int64_t doorbell_us) {
  OutstandingCommand& r = table.at(table.acquire());
  r.op = trace::Op::read;
  r.lba = 64;
  r.blocks = 8;
  r.submit = us(submit_us);
  r.doorbell = doorbell_us < 0 ? Time::never() : us(doorbell_us);
}

void reap(QueueRecorder& rec, CommandTable& table, uint16_t cid, int64_t seen_us) {
  OutstandingCommand r = table.at(cid);
  table.release(cid);
  rec.completion(cid, r, 0, us(seen_us), us(seen_us - 1), trace::Context::hardirq, table);
}

TEST(HwTraceFile, InflightRowsCloseAQueuesWindowInTimeOrderAndTheSimulatorsLayout) {
  // Queue 1 keeps two command rows, then its window closes at 12 us; queue 2 goes on.
  QueueRecorder q1(1, Time::zero(), Time::never(), 2), q2(2, Time::zero(), Time::never(), 16);
  CommandTable t1(8), t2(8);
  for (int i = 0; i < 4; ++i) submit(t1, 1 + i, i < 3 ? 5 : -1);
  submit(t2, 1, 2);
  submit(t2, 2, 3);
  reap(q1, t1, 0, 10);
  reap(q1, t1, 1, 10);
  reap(q2, t2, 0, 12);
  reap(q1, t1, 2, 12);  // over queue 1's cap: cids 2 and 3 in flight at 12 us
  reap(q2, t2, 1, 15);
  q1.interrupt(us(9), 2);
  std::ostringstream out;
  write_trace(out, {&q1, &q2}, {});

  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, trace::CommandTraceWriter::kHeader);
  std::vector<std::string> rows;
  int64_t last_t = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f = split(line);
    ASSERT_EQ(f.size(), 19u) << line;
    EXPECT_GE(std::stoll(f[1]), last_t) << "t_ns goes backwards at " << line;  // replay rejects that
    last_t = std::stoll(f[1]);
    rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 7u) << out.str();
  EXPECT_EQ(rows[0], "irq,9000,1,,,,,,,,,9000,irq,,2,,,,");
  EXPECT_EQ(rows[1], "cmd,10000,1,0,read,64,8,1000,5000,,10000,9000,irq,0,,,,,");
  EXPECT_EQ(rows[2], "cmd,10000,1,1,read,64,8,2000,5000,,10000,9000,irq,0,,,,,");
  EXPECT_EQ(rows[3], "cmd,12000,2,0,read,64,8,1000,2000,,12000,11000,irq,0,,,,,");
  // The simulator's inflight rows, less what a host cannot see (cqe_posted, unit_done).
  EXPECT_EQ(rows[4], "inflight,12000,1,2,read,64,8,3000,5000,,,,,,,,,,");
  EXPECT_EQ(rows[5], "inflight,12000,1,3,read,64,8,4000,,,,,,,,,,,");
  EXPECT_EQ(rows[6], "cmd,15000,2,1,read,64,8,2000,3000,,15000,14000,irq,0,,,,,");
}

}  // namespace
}  // namespace nvmesim::hw
