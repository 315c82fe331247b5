// The bind to vfio-pci as steps with undos: the exact sysfs writes, the restore, and a
// bind failing at each step rolled back in the right order.
#include "hw/rebind_plan.h"

#include <gtest/gtest.h>

namespace nvmesim::hw {
namespace {

const std::string kBdf = "0000:00:04.0";
const std::string kDev = "/sys/bus/pci/devices/0000:00:04.0/";
const std::string kDrv = "/sys/bus/pci/drivers/";

std::string line(const SysfsWrite& w) { return w.path + " <- " + (w.value == "\n" ? "\\n" : w.value); }

// Records every write; refuses the one whose (1-based) number is fail_at.
struct RecordingWriter {
  explicit RecordingWriter(int fail = 0) : fail_at(fail) {}
  int fail_at;
  std::vector<std::string> log;
  SysfsWriter fn() {
    return [this](const SysfsWrite& w, std::string* err) {
      log.push_back(line(w));
      if (int(log.size()) == fail_at) {
        *err = "No such device";
        return false;
      }
      return true;
    };
  }
};

TEST(RebindPlan, BindStepsFromNvme) {
  std::vector<std::string> acts;
  for (const auto& s : vfio_bind_steps(kBdf, "nvme")) acts.push_back(line(s.act));
  EXPECT_EQ(acts, (std::vector<std::string>{kDrv + "nvme/unbind <- " + kBdf,
                                            kDev + "driver_override <- vfio-pci",
                                            "/sys/bus/pci/drivers_probe <- " + kBdf}));
}

TEST(RebindPlan, RestoreClearsTheOverrideBeforeBindingTheDriver) {
  std::vector<std::string> writes;
  for (const auto& w : vfio_restore_writes(kBdf, "nvme")) writes.push_back(line(w));
  EXPECT_EQ(writes, (std::vector<std::string>{kDrv + "vfio-pci/unbind <- " + kBdf, kDev + "driver_override <- \\n",
                                              kDrv + "nvme/bind <- " + kBdf,
                                              "/sys/bus/pci/drivers_probe <- " + kBdf}));
}

TEST(RebindPlan, NoDriverBeforeMeansNoDriverAfter) {
  std::vector<std::string> writes;
  for (const auto& w : vfio_restore_writes(kBdf, "")) writes.push_back(line(w));
  EXPECT_EQ(writes, (std::vector<std::string>{kDrv + "vfio-pci/unbind <- " + kBdf, kDev + "driver_override <- \\n"}));
  // Unknown (no saved driver): the kernel picks one.
  EXPECT_EQ(line(vfio_restore_writes(kBdf, "", true).back()), "/sys/bus/pci/drivers_probe <- " + kBdf);
}

TEST(RebindPlan, AllStepsTake) {
  RecordingWriter w;
  EXPECT_EQ(run_with_rollback(vfio_bind_steps(kBdf, "nvme"), w.fn()), "");
  EXPECT_EQ(w.log.size(), 3u);
}

TEST(RebindPlan, UnbindRefusedChangesNothingElse) {
  RecordingWriter w(1);
  std::string err = run_with_rollback(vfio_bind_steps(kBdf, "nvme"), w.fn());
  EXPECT_NE(err.find("nvme/unbind failed: No such device"), std::string::npos) << err;
  // The failed step's undo (bind nvme again) is harmless when the unbind did not happen.
  EXPECT_EQ(w.log, (std::vector<std::string>{kDrv + "nvme/unbind <- " + kBdf, kDrv + "nvme/bind <- " + kBdf}));
}

TEST(RebindPlan, OverrideRefusedRebindsTheDriver) {
  RecordingWriter w(2);
  EXPECT_NE(run_with_rollback(vfio_bind_steps(kBdf, "nvme"), w.fn()), "");
  EXPECT_EQ(w.log, (std::vector<std::string>{kDrv + "nvme/unbind <- " + kBdf, kDev + "driver_override <- vfio-pci",
                                             kDev + "driver_override <- \\n", kDrv + "nvme/bind <- " + kBdf}));
}

TEST(RebindPlan, ProbeRefusedUndoesEverythingLastFirst) {
  RecordingWriter w(3);
  EXPECT_NE(run_with_rollback(vfio_bind_steps(kBdf, "nvme"), w.fn()), "");
  EXPECT_EQ(w.log, (std::vector<std::string>{kDrv + "nvme/unbind <- " + kBdf, kDev + "driver_override <- vfio-pci",
                                             "/sys/bus/pci/drivers_probe <- " + kBdf,
                                             kDrv + "vfio-pci/unbind <- " + kBdf, kDev + "driver_override <- \\n",
                                             kDrv + "nvme/bind <- " + kBdf}));
}

TEST(RebindPlan, ProbeThatBoundSomethingElseIsRolledBack) {
  RecordingWriter w;
  std::string err = run_with_rollback(vfio_bind_steps(kBdf, "nvme"), w.fn(), [] { return std::string("on nvme"); });
  EXPECT_EQ(err, "on nvme");
  ASSERT_EQ(w.log.size(), 6u);
  EXPECT_EQ(w.log.back(), kDrv + "nvme/bind <- " + kBdf);
}

TEST(RebindPlan, UndoFailuresDoNotStopTheRollback) {
  RecordingWriter w(3);
  std::vector<RebindStep> steps = vfio_bind_steps(kBdf, "nvme");
  int writes = 0;
  SysfsWriter all_undos_fail = [&](const SysfsWrite& sw, std::string* err) {
    w.log.push_back(line(sw));
    *err = "EBUSY";
    return ++writes < 3;
  };
  EXPECT_NE(run_with_rollback(steps, all_undos_fail), "");
  EXPECT_EQ(w.log.size(), 6u);
}

}  // namespace
}  // namespace nvmesim::hw
