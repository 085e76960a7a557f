#!/usr/bin/env bash
# Runs .ci/run (or the one command given) several times in a row on a machine kept busy on
# purpose: spinning Node processes hold every core, and with --slow-disk the runs' disk I/O is
# throttled too, where the kernel lets us. A suite that only passes on a quiet machine fails
# here; a suite that waits on events, not clocks, passes, only slower.
#
#   bash scripts/ci-under-load.sh                    # .ci/run, 3 times, 2 hogs per core
#   bash scripts/ci-under-load.sh --runs 1 --hogs 8 'cd packages/fs && npx vitest run test/names-crash.test.ts'
#   bash scripts/ci-under-load.sh --slow-disk 'cd packages/sharded && npx vitest run'
#
# Options: --runs N (default 3), --hogs N (spinning processes, default 2 per core: with the
# suite's own processes, a load average several times the core count), --slow-disk (cgroup
# I/O limit on the runs; skipped with a message where no cgroup I/O controller is writable),
# --keep-going (run all N even after a failure). Prints each run's duration and result, and
# exits non-zero if any run failed. The hogs (and the cgroup) are always removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
hogs=$((2 * $(nproc)))
slow_disk=false
keep_going=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --slow-disk) slow_disk=true; shift ;;
    --keep-going) keep_going=true; shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    --*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [[ $# -gt 1 ]]; then
  echo "give the command as one argument (quote it)" >&2
  exit 2
fi
command="${1:-bash .ci/run}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "--runs must be a positive whole number" >&2; exit 2; }
[[ "$hogs" =~ ^[0-9]+$ ]] || { echo "--hogs must be a whole number" >&2; exit 2; }

hog_pids=()
cgroup_dir=""
run_pid=""

cleanup() {
  local pid
  # A run cut short (Ctrl-C, TERM): its whole process group goes, not only its shell.
  if [[ -n "$run_pid" ]] && kill -0 "$run_pid" 2>/dev/null; then
    kill -TERM -- "-$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n "$cgroup_dir" && -d "$cgroup_dir" ]]; then
    # Back to the root group first: a cgroup with members cannot be removed.
    local root_procs
    root_procs="$(dirname "$cgroup_dir")/cgroup.procs"
    while read -r pid; do echo "$pid" >"$root_procs" 2>/dev/null || true; done <"$cgroup_dir/cgroup.procs"
    rmdir "$cgroup_dir" 2>/dev/null || echo "note: could not remove $cgroup_dir" >&2
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The disk: the block device under the working tree, throttled for the runs' processes.
# cgroup v2 (io.max) limits buffered writes as well; cgroup v1 (blkio.throttle) only reads and
# direct or synchronous writes, since v1 charges page-cache writeback to the root group.
setup_slow_disk() {
  local dev majmin
  dev="$(df --output=source . | tail -1)"
  if [[ ! -b "$dev" ]]; then
    echo "slow disk: skipped ($dev is not a block device)"
    return
  fi
  majmin="$(lsblk -no MAJ:MIN "$dev" 2>/dev/null | head -1 | tr -d ' ')"
  [[ -n "$majmin" ]] || majmin="$(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")"
  # A whole disk takes the limit; a partition's limit goes on its parent disk.
  local parent
  parent="$(lsblk -no PKNAME "$dev" 2>/dev/null | head -1)"
  if [[ -n "$parent" ]]; then majmin="$(lsblk -dno MAJ:MIN "/dev/$parent" | tr -d ' ')"; fi
  local name="artifact-kit-ci-under-load-$$"
  if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    if mkdir "/sys/fs/cgroup/$name" 2>/dev/null &&
      echo "$majmin rbps=20971520 wbps=10485760 riops=400 wiops=200" >"/sys/fs/cgroup/$name/io.max" 2>/dev/null; then
      cgroup_dir="/sys/fs/cgroup/$name"
      echo "slow disk: cgroup v2 io.max on $majmin (20 MB/s and 400 IO/s read, 10 MB/s and 200 IO/s write)"
      return
    fi
    rmdir "/sys/fs/cgroup/$name" 2>/dev/null || true
  elif [[ -w /sys/fs/cgroup/blkio/cgroup.procs ]]; then
    local dir="/sys/fs/cgroup/blkio/$name"
    if mkdir "$dir" 2>/dev/null &&
      echo "$majmin 20971520" >"$dir/blkio.throttle.read_bps_device" &&
      echo "$majmin 10485760" >"$dir/blkio.throttle.write_bps_device" &&
      echo "$majmin 400" >"$dir/blkio.throttle.read_iops_device" &&
      echo "$majmin 200" >"$dir/blkio.throttle.write_iops_device"; then
      cgroup_dir="$dir"
      echo "slow disk: cgroup v1 blkio throttle on $majmin (20 MB/s and 400 IO/s read, 10 MB/s and 200 IO/s write;"
      echo "  v1 throttles reads and direct/synchronous writes, not page-cache writeback)"
      return
    fi
    rmdir "$dir" 2>/dev/null || true
  fi
  echo "slow disk: skipped (no writable cgroup I/O controller here: needs root and cgroup v2 io or v1 blkio)"
}

if [[ "$slow_disk" == true ]]; then setup_slow_disk; fi

for ((i = 0; i < hogs; i++)); do
  # Spins in 50 ms slices and stops by itself if this script dies without its clean-up.
  node -e 'const parent = process.ppid; for (;;) { const t = Date.now(); while (Date.now() - t < 50); if (process.ppid !== parent) process.exit(0); }' &
  hog_pids+=("$!")
done
echo "cpu hog: $hogs spinning node processes on $(nproc) cores (pids ${hog_pids[*]:-none})"
echo "command: $command"

failed=0
summary=()
for ((run = 1; run <= runs; run++)); do
  printf '\n=== ci-under-load: run %d of %d (load average %s)\n' "$run" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
  started=$SECONDS
  # In its own process group (setsid), in the background: a signal to this script runs the
  # clean-up at once, which ends the run's whole group. The run's shell joins the throttled
  # cgroup, if any, before it starts anything: its children follow.
  set +e
  setsid bash -c '[[ -z "$1" ]] || echo $$ >"$1/cgroup.procs" || exit 1; exec bash -c "$2"' \
    ci-under-load "$cgroup_dir" "$command" </dev/null &
  run_pid=$!
  wait "$run_pid"
  status=$?
  run_pid=""
  set -e
  seconds=$((SECONDS - started))
  if [[ $status -eq 0 ]]; then result="passed"; else result="FAILED (exit $status)"; failed=$((failed + 1)); fi
  line="run $run: $result in ${seconds}s ($((seconds / 60))m $((seconds % 60))s)"
  summary+=("$line")
  echo "=== ci-under-load: $line"
  if [[ $status -ne 0 && "$keep_going" != true ]]; then break; fi
done

printf '\n=== ci-under-load summary (%d hogs%s)\n' "$hogs" "$([[ -n "$cgroup_dir" ]] && echo ", slow disk")"
printf '%s\n' "${summary[@]}"
if [[ $failed -gt 0 ]]; then
  echo "$failed of ${#summary[@]} runs failed"
  exit 1
fi
echo "all ${#summary[@]} runs passed"
