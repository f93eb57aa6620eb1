#!/usr/bin/env bash
# Prepare, on a machine with apt (this project's Debian 12 machines), the
# Debian packages the build needs on the GPU machine, which has nvcc but no
# network and no apt: they are downloaded into .gpu-deps/ (git-ignored),
# which the device tool carries (carry: [".gpu-deps"]) and tools/gpu-check.sh
# unpacks with dpkg -x into .gpu-deps/root.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
cd .gpu-deps
pkgs=(libopenblas0-pthread libopenblas-pthread-dev libopenblas-dev check libsubunit0 libsubunit-dev libgfortran5 libquadmath0)
apt-get download "${pkgs[@]}" >/dev/null
# the commit being checked (.git does not travel to the GPU machine)
{ git rev-parse --short HEAD 2>/dev/null | tr -d '\n'; git diff --quiet 2>/dev/null || printf ' (+ uncommitted changes)'; echo; } >COMMIT
ls -1 *.deb
du -sh .
