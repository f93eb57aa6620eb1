#!/usr/bin/env bash
# The fallback of the GPU check (docs/gpu-check.md), where no pack can be
# built here: the Debian packages a build on the GPU machine needs (it has
# nvcc but no network and no apt) are downloaded into .gpu-deps/
# (git-ignored), which the device tool carries (carry: [".gpu-deps"]) and
# GPU_CHECK_BUILD=1 bash tools/gpu-check.sh 1 unpacks with dpkg -x into
# .gpu-deps/root before it builds.
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
