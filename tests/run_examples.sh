#!/usr/bin/env bash
# Smoke-run every example binary and check the line it must print.
# Each example states its expected marker in a comment "// expect: TEXT"
# and may give arguments in "// args: ..." (@TMP@ = a temporary directory,
# removed at the end, for the files an example writes).
set -u
dir=${1:-build/examples}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in examples/*.c; do
  name=$(basename "$src" .c)
  bin="$dir/$name"
  want=$(sed -n 's|^// expect: ||p' "$src" | head -n 1)
  args=$(sed -n 's|^// args: ||p' "$src" | head -n 1)
  args=${args//@TMP@/$tmp}
  # shellcheck disable=SC2086 # the arguments split on spaces
  if ! out=$("$bin" $args 2>&1); then
    echo "example $name: FAILED (exit status)"; echo "$out" | tail -n 20; fail=1; continue
  fi
  if [ -n "$want" ] && ! grep -qF -- "$want" <<<"$out"; then
    echo "example $name: FAILED (output lacks '$want')"; echo "$out" | tail -n 20; fail=1; continue
  fi
  echo "example $name: ok"
done
exit $fail
