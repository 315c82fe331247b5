#!/bin/sh
# hw links app/'s formats library only (hw/CMakeLists.txt): not the run layer, not the
# calibration fitter, not Eigen. Fails when the nvmesim-hw binary defines any symbol that
# one of those libraries defines, or any Eigen symbol, or when its link line (Makefile
# generators write it to link.txt) names one of them.
#   usage: links_no_fitter.sh NVMESIM_HW LINK_TXT LIBRARY...
set -eu
hw=$1 link_txt=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
nm --defined-only "$hw" | awk '{print $NF}' | sort -u >"$tmp/hw"
[ -s "$tmp/hw" ] || { echo "no symbols in $hw (stripped?)"; exit 1; }
for lib in "$@"; do
  # A library's strong definitions (code and data, not the weak copies of inline
  # functions and templates every object that uses them carries) are in the binary only
  # when one of its objects was linked in.
  nm --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBR]$/ {print $3}' | sort -u >"$tmp/lib"
  [ -s "$tmp/lib" ] || { echo "no symbols in $lib"; exit 1; }
  comm -12 "$tmp/hw" "$tmp/lib" >"$tmp/common"
  if [ -s "$tmp/common" ]; then
    echo "$hw defines $(wc -l <"$tmp/common") symbols of $lib, e.g.:"
    head -5 "$tmp/common" | c++filt
    fail=1
  fi
  name=$(basename "$lib")
  if [ -f "$link_txt" ] && grep -q "$name" "$link_txt"; then
    echo "the link line of $hw names $name"
    fail=1
  fi
done
if nm -C "$hw" | grep -q 'Eigen::'; then
  echo "$hw has Eigen symbols:"
  nm -C "$hw" | grep 'Eigen::' | head -5
  fail=1
fi
if [ -f "$link_txt" ] && grep -qi 'eigen' "$link_txt"; then
  echo "the link line of $hw names Eigen"
  fail=1
fi
[ $fail -eq 0 ] && echo "$hw links none of: $*"
exit $fail
