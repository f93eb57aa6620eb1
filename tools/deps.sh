#!/usr/bin/env bash
# Install the Debian packages libndgpu needs to build and test, when they
# are missing. As root it installs them; otherwise it prints the command.
set -euo pipefail
pkgs=(libopenblas-dev check pkg-config)
pkgs+=(cmake) # the CMake consumer of tests/test_install.sh
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q "${missing[@]}" >/dev/null
else
  echo "deps: missing packages: ${missing[*]}" >&2
  echo "deps: run:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
