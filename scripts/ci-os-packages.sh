#!/usr/bin/env bash
# OS packages for the tests that run real Prometheus, Alertmanager and a headless browser
# (tests/promkit.py, tests/browserkit.py): Debian's prometheus (prometheus, promtool),
# prometheus-alertmanager and chromium.
#
# - Idempotent: installs only the packages whose binaries are missing; prints one line on what
#   it did and always exits 0. When the packages cannot be had (no apt-get, not root, no
#   registry), it prints a WARNING line and the tests that need them skip, naming this script.
# - `apt-get update` runs at most once: only when the install fails on the present package lists.
# - Non-interactive, without recommends (prometheus recommends prometheus-node-exporter, which
#   these tests do not need).
# - The packages' services (prometheus on :9090, alertmanager on :9093/:9094) must not start:
#   the tests start their own on free ports of 127.0.0.1. A policy-rc.d that denies every start
#   is put in place for the install (invoke-rc.d and deb-systemd-invoke both ask it) and removed
#   after, unless one was there already.
set -u

export DEBIAN_FRONTEND=noninteractive
tag="ci-os-packages:"

declare -A bins=([prometheus]="prometheus promtool" [prometheus-alertmanager]="prometheus-alertmanager"
                 [chromium]="chromium")
need=()
for pkg in prometheus prometheus-alertmanager chromium; do
  for bin in ${bins[$pkg]}; do
    if ! command -v "$bin" >/dev/null 2>&1; then need+=("$pkg"); break; fi
  done
done

if [ "${#need[@]}" -eq 0 ]; then
  echo "$tag prometheus, promtool, prometheus-alertmanager and chromium already installed; nothing to do"
  exit 0
fi

warn() {
  echo "$tag WARNING: could not install ${need[*]} ($1); the tests that need them will be skipped"
  exit 0
}

command -v apt-get >/dev/null 2>&1 || warn "no apt-get on this machine"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    warn "not root and no password-less sudo"
  fi
fi

policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  if printf '#!/bin/sh\n# ci-os-packages.sh: no service starts during the install\nexit 101\n' \
       | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod 755 "$policy"; then
    made_policy=1
  fi
fi
cleanup() { if [ "$made_policy" -eq 1 ]; then "${sudo[@]}" rm -f "$policy"; fi; }
trap cleanup EXIT

log=$(mktemp -t ci-os-packages.XXXXXX.log)
install() {
  "${sudo[@]}" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 \
    "${need[@]}" >"$log" 2>&1
}
last_error() { grep -E '^(E|W|Err):' "$log" | tail -n 1; }

updated=""
if ! install; then
  updated=" after apt-get update"
  if ! "${sudo[@]}" apt-get update -q -o DPkg::Lock::Timeout=300 >"$log" 2>&1; then
    warn "apt-get update failed: $(last_error) (log: $log)"
  fi
  if ! install; then
    warn "apt-get install failed: $(last_error) (log: $log)"
  fi
fi

missing=()
for pkg in "${need[@]}"; do
  for bin in ${bins[$pkg]}; do command -v "$bin" >/dev/null 2>&1 || missing+=("$bin"); done
done
[ "${#missing[@]}" -eq 0 ] || warn "installed, but still missing: ${missing[*]}; see $log"

rm -f "$log"
echo "$tag installed ${need[*]}$updated (apt, no recommends, services not started)"
exit 0
