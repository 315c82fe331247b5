#!/bin/sh
# The measurements of the calibration test (hw/vm/calibrate_e2e.sh): the same random-read
# workload at several queue depths with plain interrupts, each run's results and command
# trace printed for run-vm.sh --out. Fitting and comparing happen on the host: the VM
# has only nvmesim-hw.
. /lib.sh
bind_vfio
for qd in ${DEPTHS:-1 2 4 8}; do
  IODEPTH=$qd write_scenario irq "${DURATION_US:-300000}"
  # The drive as the fit will model it (the hw run ignores the profile): lognormal reads,
  # since TCG gives the emulated drive a long tail.
  sed -i -e 's/"read": {"dist": "constant", "mean_ns": 100000}/"read": {"dist": "lognormal", "mean_ns": 100000, "sigma": 1.0}/' \
    /tmp/scenario.json
  grep -q '"sigma": 1.0' /tmp/scenario.json || fail "the scenario's drive profile was not rewritten"
  expect_rc 0 nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json -o /tmp/results-qd$qd.json \
    --trace /tmp/trace-qd$qd.csv
  grep -q '"source": "hw"' /tmp/results-qd$qd.json || fail "results-qd$qd.json is not a hw run"
  emit_file /tmp/results-qd$qd.json
  emit_file /tmp/trace-qd$qd.csv
done
echo "PASS: calibration runs at depths ${DEPTHS:-1 2 4 8}"
