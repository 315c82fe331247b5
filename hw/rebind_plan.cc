#include "hw/rebind_plan.h"

namespace nvmesim::hw {

namespace {

const std::string kPci = "/sys/bus/pci";

std::string device_file(const std::string& bdf, const std::string& file) {
  return kPci + "/devices/" + bdf + "/" + file;
}
std::string driver_file(const std::string& driver, const std::string& file) {
  return kPci + "/drivers/" + driver + "/" + file;
}

}  // namespace

std::vector<RebindStep> vfio_bind_steps(const std::string& bdf, const std::string& driver) {
  std::vector<RebindStep> steps;
  if (!driver.empty())
    steps.push_back({{driver_file(driver, "unbind"), bdf}, {{driver_file(driver, "bind"), bdf}}});
  steps.push_back({{device_file(bdf, "driver_override"), "vfio-pci"},
                   {{device_file(bdf, "driver_override"), "\n"}}});  // a bare newline clears it
  steps.push_back({{kPci + "/drivers_probe", bdf}, {{driver_file("vfio-pci", "unbind"), bdf}}});
  return steps;
}

std::vector<SysfsWrite> vfio_restore_writes(const std::string& bdf, const std::string& driver,
                                            bool unknown_driver) {
  std::vector<SysfsWrite> writes;
  std::vector<RebindStep> steps = vfio_bind_steps(bdf, driver);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) writes.insert(writes.end(), it->undo.begin(), it->undo.end());
  if (!driver.empty() || unknown_driver) writes.push_back({kPci + "/drivers_probe", bdf});
  return writes;
}

std::string run_with_rollback(const std::vector<RebindStep>& steps, const SysfsWriter& write,
                              const std::function<std::string()>& verify) {
  std::string failure;
  size_t done = 0;
  for (; done < steps.size(); ++done) {
    std::string err;
    if (!write(steps[done].act, &err)) {
      failure = "writing '" + steps[done].act.value + "' to " + steps[done].act.path + " failed: " + err;
      break;
    }
  }
  if (failure.empty() && verify) failure = verify();
  if (failure.empty()) return "";
  // The failed step may have half-happened (a probe that bound nothing): undo it too.
  size_t undo_from = done < steps.size() ? done + 1 : done;
  for (size_t k = undo_from; k-- > 0;)
    for (const auto& w : steps[k].undo) {
      std::string ignored;
      write(w, &ignored);
    }
  return failure;
}

}  // namespace nvmesim::hw
