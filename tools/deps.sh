#!/usr/bin/env bash
# Install what libndgpu needs to build and test, when it is missing.
#
#   tools/deps.sh        the Debian packages (as root it installs them;
#                        otherwise it prints the command), then the BLAS
#   tools/deps.sh blas   only the BLAS: scipy-openblas32 from PyPI, the
#                        current OpenBLAS that NumPy and SciPy ship, which
#                        knows CPUs newer than the distribution's OpenBLAS
#                        (docs/blas.md). mk/blas.mk runs this when BLAS=auto
#                        finds none; it fails quietly (status 1) offline or
#                        without pip, and the build then takes the system
#                        OpenBLAS (libopenblas-dev, installed below).
set -euo pipefail
PYTHON=${PYTHON:-python3}

blas() {
  "$PYTHON" -c 'import scipy_openblas32' 2>/dev/null && return 0
  "$PYTHON" -m pip --version >/dev/null 2>&1 || { echo "deps: no pip for $PYTHON: BLAS=auto takes the system OpenBLAS" >&2; return 1; }
  local args=(-m pip install -q --disable-pip-version-check --retries 1 --timeout 20)
  [ "$(id -u)" -eq 0 ] || args+=(--user)
  echo "deps: installing scipy-openblas32 (pip) for the BLAS" >&2
  # a distribution's Python may refuse (PEP 668); the wheel is a
  # self-contained library with no Python dependencies
  "$PYTHON" "${args[@]}" 'scipy-openblas32>=0.3.28' >/dev/null 2>&1 ||
    "$PYTHON" "${args[@]}" --break-system-packages 'scipy-openblas32>=0.3.28' >/dev/null 2>&1 || {
    echo "deps: could not install scipy-openblas32: BLAS=auto takes the system OpenBLAS" >&2
    return 1
  }
}

if [ "${1:-}" = blas ]; then
  blas
  exit $?
fi

pkgs=(libopenblas-dev zlib1g-dev check pkg-config g++)
pkgs+=(cmake) # the CMake consumer of tests/test_install.sh
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
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
fi
# the BLAS: best effort (the system OpenBLAS above is the fallback)
blas || true
