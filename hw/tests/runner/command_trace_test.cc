// The trace CSV: one header, every row the same number of fields, quoting.
#include "vocab/command_trace.h"

#include <gtest/gtest.h>

#include <sstream>

namespace nvmesim::trace {
namespace {

size_t fields(const std::string& line) {
  size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

TEST(CommandTrace, EveryRowHasTheHeadersFieldCount) {
  std::ostringstream out;
  CommandTraceWriter w(out);
  CommandRecord c;
  c.queue = 1;
  c.cid = 7;
  c.op = Op::write;
  c.lba = 4096;
  c.blocks = 8;
  c.submit = Time::from_ns(100);
  c.doorbell = Time::from_ns(150);
  c.cqe_seen = Time::from_ns(9000);
  c.irq = Time::from_ns(8800);
  w.write(c);
  c.irq.reset();
  c.cqe_posted = Time::from_ns(8500);
  c.completed_by = Context::app;
  w.write(c);
  w.write(IrqRecord{1, Time::from_ns(8800), 3, false});
  w.write(IrqRecord{1, Time::from_ns(8900), 0, true});
  w.write(ModeRecord{1, Time::from_ns(9999), "irq", "poll", "inflight 40 >= 32, \"high\""});
  // Submitted in the window, not seen in it: posted before its end, then not yet rung.
  InflightRecord f{.queue = 2, .cid = 9, .op = Op::read, .lba = 0, .blocks = 8, .at = Time::from_ns(10000),
                   .submit = Time::from_ns(9100), .doorbell = Time::from_ns(9200),
                   .cqe_posted = Time::from_ns(9900), .unit_done = Time::from_ns(9800)};
  w.write(f);
  f.doorbell.reset();
  f.cqe_posted.reset();
  f.unit_done.reset();
  w.write(f);

  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, CommandTraceWriter::kHeader);
  size_t want = fields(line);
  EXPECT_EQ(want, 19u);
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    EXPECT_EQ(fields(line), want) << line;
    rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0], "cmd,9000,1,7,write,4096,8,100,150,,9000,8800,irq,0,,,,,");
  EXPECT_EQ(rows[1], "cmd,9000,1,7,write,4096,8,100,150,8500,9000,,app,0,,,,,");
  EXPECT_EQ(rows[2], "irq,8800,1,,,,,,,,,8800,irq,,3,,,,");
  EXPECT_EQ(rows[3], "irq_held,8900,1,,,,,,,,,8900,irq,,,,,,");
  EXPECT_EQ(rows[4], "mode,9999,1,,,,,,,,,,,,,irq,poll,\"inflight 40 >= 32, \"\"high\"\"\",");
  EXPECT_EQ(rows[5], "inflight,10000,2,9,read,0,8,9100,9200,9900,,,,,,,,,9800");
  EXPECT_EQ(rows[6], "inflight,10000,2,9,read,0,8,9100,,,,,,,,,,,");
}

}  // namespace
}  // namespace nvmesim::trace
