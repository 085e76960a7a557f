#!/usr/bin/env bash
# Builds crashfs (test/power-loss/crashfs, a FUSE filesystem that simulates power cuts) and
# checks that it can mount here, for the @artifact-kit/fs power-loss trials.
#
#   eval "$(bash packages/fs/scripts/crashfs.sh)"     # build once, check a mount, export CRASHFS_BIN
#   bash packages/fs/scripts/crashfs.sh --install     # only build; prints the export line
#   bash packages/fs/scripts/crashfs.sh --unmount DIR # lazily unmount a mount left behind
#
# The binary is built with `go build` (go-fuse from the Go module proxy) once per source
# version, into a cache folder (CRASHFS_CACHE, default ~/.cache/artifact-kit). Mounting uses
# the mount syscall directly: it needs root and /dev/fuse (loaded with modprobe if missing).
set -euo pipefail
shopt -s inherit_errexit # a failed build inside $(install_binary) must stop the script

readonly SOURCE="$(cd "$(dirname "$0")/../test/power-loss/crashfs" && pwd)"
readonly CACHE="${CRASHFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"

source_version() {
  (cd "$SOURCE" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)
}

install_binary() {
  local bin_dir bin
  bin_dir="$CACHE/crashfs/$(source_version)"
  bin="$bin_dir/crashfs"
  if [[ ! -x "$bin" ]]; then
    if ! command -v go >/dev/null 2>&1; then
      echo "crashfs: Go is needed to build crashfs" >&2
      exit 1
    fi
    mkdir -p "$bin_dir"
    echo "crashfs: building $bin (once)" >&2
    (cd "$SOURCE" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -o "$bin.tmp" . >&2)
    mv "$bin.tmp" "$bin"
  fi
  printf 'export CRASHFS_BIN=%s\n' "$bin"
}

# What mounting needs, checked before anything is built.
check_can_mount() {
  if [[ "$(id -u)" != 0 ]]; then
    echo "crashfs: mounting needs root (the power-loss trials mount a FUSE filesystem)" >&2
    exit 1
  fi
  if [[ ! -c /dev/fuse ]]; then modprobe fuse >&2 || true; fi
  if [[ ! -c /dev/fuse ]]; then
    echo "crashfs: /dev/fuse is missing and modprobe fuse did not provide it" >&2
    exit 1
  fi
}

# Mounts an empty disk and unmounts it: fails with the reason.
check_mount() {
  local bin="$1" mountpoint workdir answer
  mountpoint="$(mktemp -d)"
  workdir="$(mktemp -d -p /dev/shm)"
  answer="$(printf 'status\n' | "$bin" -mountpoint "$mountpoint" -workdir "$workdir" 2>&1 | tail -1)"
  rmdir "$mountpoint" 2>/dev/null || true
  rm -rf "$workdir"
  if [[ "$answer" != ok* ]]; then
    echo "crashfs: cannot mount here: $answer" >&2
    exit 1
  fi
}

case "${1:-}" in
  --install) install_binary ;;
  --unmount) umount -l "${2:?usage: crashfs.sh --unmount DIR}" ;;
  "")
    check_can_mount
    line="$(install_binary)"
    check_mount "${line#export CRASHFS_BIN=}"
    echo "$line"
    ;;
  *)
    echo "usage: crashfs.sh [--install | --unmount DIR]" >&2
    exit 2
    ;;
esac
