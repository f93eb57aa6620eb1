#!/usr/bin/env bash
# The allocator door (src/core/alloc.h): no host allocation in src/ bypasses it
# (no direct malloc, calloc, realloc, free, aligned_alloc, posix_memalign,
# strdup outside src/core/alloc.c), and every device or pinned allocation from
# the CUDA runtime is preceded by the fault gate nd__alloc_inject() in the
# same function (within the 4 lines before it). src/mpi is libndgpu_mpi, a
# separate library on libndgpu's public API: its data buffers are libndgpu
# arrays (behind the door), its few bookkeeping structs use malloc.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
fail=0
direct=$(grep -rnE '(^|[^._>a-zA-Z0-9])(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|strdup|strndup)[[:space:]]*\(' \
           src --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' |
         grep -v '^src/core/alloc\.c:' | grep -v '^src/mpi/' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)')
if [ -n "$direct" ]; then
  echo "$direct"
  echo "test-alloc-door: FAILED (allocations above bypass src/core/alloc.h: use nd__malloc & co)"
  fail=1
fi
ungated=$(for f in $(grep -rlE 'cuda(Malloc|HostAlloc|MallocHost|MallocManaged|MallocAsync)\w*\(' src); do
  awk -v f="$f" '
    /^[[:space:]]*(\/\/|\/\*|\*)/ { next }
    { hist[NR % 5] = $0 }
    /cuda(Malloc|HostAlloc|MallocHost|MallocManaged|MallocAsync)[A-Za-z]*\(/ {
      ok = 0
      for (i = 1; i <= 4; i++) if (hist[(NR - i) % 5] ~ /nd__alloc_inject\(\)/) ok = 1
      if (!ok) print f ":" NR ": " $0
    }' "$f"
done)
if [ -n "$ungated" ]; then
  echo "$ungated"
  echo "test-alloc-door: FAILED (vendor allocations above do not pass nd__alloc_inject())"
  fail=1
fi
[ $fail -eq 0 ] && echo "test-alloc-door: OK (no allocation bypasses src/core/alloc.h; every vendor allocation is gated)"
exit $fail
