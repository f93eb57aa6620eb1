#!/usr/bin/env bash
# make mpi-test: the collective tests (tests/mpi/test_mpi.c) and every
# examples/mpi/*.c under mpirun with $MPI_NP processes (default 2).
# Each example states "// expect: TEXT" (printed on success) and may give
# "// args: ..." (as tests/run_examples.sh). Threads: ND_NUM_THREADS=1 per
# process unless set, so 2 processes fit 2 cores (Open MPI's waits spin).
# mpirun --timeout bounds a hang (a rank that never makes a call).
set -u
build=${1:-build}
np=${MPI_NP:-2}
mpirun=${MPIRUN:-mpirun}
flags=(--oversubscribe --timeout "${MPI_TIMEOUT:-900}")
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
# no network needed on one host: shared memory and self only (Open MPI's
# TCP and OpenIB components probe interfaces and warn in containers)
flags+=(--mca btl self,vader)
# shellcheck disable=SC2206 # MPIRUN_FLAGS splits on spaces
flags+=(${MPIRUN_FLAGS:-})
export ND_NUM_THREADS=${ND_NUM_THREADS:-1}
env_flags=(-x ND_NUM_THREADS)
[ -n "${ND_DEVICE:-}" ] && env_flags+=(-x ND_DEVICE)
[ -n "${LSAN_OPTIONS:-}" ] && env_flags+=(-x LSAN_OPTIONS)
[ -n "${ASAN_OPTIONS:-}" ] && env_flags+=(-x ASAN_OPTIONS)
for v in OMPI_MCA_mca_base_component_disable_dlclose PMIX_MCA_mca_base_component_disable_dlclose; do
  [ -n "${!v:-}" ] && env_flags+=(-x "$v")
done
fail=0
t0=$(date +%s)
echo "mpi-test: $("$mpirun" --version 2>/dev/null | head -n 1), $np processes, ND_NUM_THREADS=$ND_NUM_THREADS"
if ! "$mpirun" "${flags[@]}" "${env_flags[@]}" -np "$np" "$build/tests/mpi/ndgpu_mpi_tests"; then
  echo "mpi-test: collective tests FAILED"; fail=1
fi
# one rank too: every collective must work (and stay correct) with size 1
if ! out=$("$mpirun" "${flags[@]}" "${env_flags[@]}" -np 1 "$build/tests/mpi/ndgpu_mpi_tests" 2>&1); then
  echo "$out" | tail -n 20; echo "mpi-test: collective tests with 1 rank FAILED"; fail=1
else
  echo "mpi-test: 1 rank: $(echo "$out" | grep -E 'Checks:' | tail -n 1)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in examples/mpi/*.c; do
  [ -e "$src" ] || continue
  name=$(basename "$src" .c)
  want=$(sed -n 's|^// expect: ||p' "$src" | head -n 1)
  args=$(sed -n 's|^// args: ||p' "$src" | head -n 1)
  args=${args//@TMP@/$tmp}
  # shellcheck disable=SC2086 # the arguments split on spaces
  if ! out=$("$mpirun" "${flags[@]}" "${env_flags[@]}" -np "$np" "$build/examples/mpi/$name" $args 2>&1); then
    echo "example mpi/$name: FAILED (exit status)"; echo "$out" | tail -n 20; fail=1; continue
  fi
  if [ -n "$want" ] && ! grep -qF -- "$want" <<<"$out"; then
    echo "example mpi/$name: FAILED (output lacks '$want')"; echo "$out" | tail -n 20; fail=1; continue
  fi
  echo "example mpi/$name: ok"
done
echo "mpi-test: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - t0 )) s"
exit $fail
