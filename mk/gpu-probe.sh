#!/usr/bin/env bash
# Is there an NVIDIA GPU the driver answers for? Prints three shell
# assignments (for eval):
#   GPU_FOUND=1|0   GPU_ARCH="90 ..." (compute capabilities, may be empty)
#   GPU_WHY="..."   what answered, or why nothing did
# Used by `make bench` to decide whether to build the CUDA half.
found=0 arch="" why=""
if command -v nvidia-smi >/dev/null 2>&1; then
  if out=$(timeout 20 nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null) && [ -n "$out" ]; then
    found=1
    names=$(cut -d, -f1 <<<"$out" | sed 's/^ *//; s/ *$//' | sort -u | paste -sd/ -)
    arch=$(cut -d, -f2 <<<"$out" | tr -d ' .' | grep -E '^[0-9]+$' | sort -un | paste -sd' ' -)
    why="nvidia-smi: $(wc -l <<<"$out") x $names${arch:+ (sm_${arch// /, sm_})}"
  else
    why="nvidia-smi found no GPU"
  fi
elif compgen -G "/proc/driver/nvidia/gpus/*" >/dev/null; then
  found=1
  why="the NVIDIA driver lists $(ls /proc/driver/nvidia/gpus | wc -l) GPU(s) in /proc/driver/nvidia/gpus (no nvidia-smi: architecture unknown)"
else
  why="no NVIDIA driver answered (no nvidia-smi, no /proc/driver/nvidia/gpus)"
fi
printf 'GPU_FOUND=%s\nGPU_ARCH=%q\nGPU_WHY=%q\n' "$found" "$arch" "$why"
