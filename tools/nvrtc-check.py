#!/usr/bin/env python3
"""Compile, with the real NVRTC, every CUDA program the emulated device
compiled (tests/emu/nvrtc_emu.cpp writes them when ND_EMU_RTC_KEEP=DIR):
the library's generated units (elementwise and reduction kernels, fused
expressions) and the raw kernels of the tests. NVRTC needs no GPU, so a
machine with the CUDA toolkit and no GPU still proves that what runs on
the emulated device also compiles for a real one.

    python3 tools/nvrtc-check.py DIR [--arch sm_90] [--lib libnvrtc.so.13]

A program the emulated compiler accepted (DIR/<h>.ok) must compile; one it
refused (the tests' intentional compile errors) is only counted. The
options are the backend's (-arch, -std=c++17, src/cuda/rtc.cu) and the
program's own (DIR/<h>.opts). Exit 1 when an accepted program fails, 2
when NVRTC cannot be loaded (the line says so: no CUDA toolkit here)."""
import argparse
import ctypes
import glob
import os
import sys


def load(lib):
    names = [lib] if lib else ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                               "/usr/local/cuda/lib64/libnvrtc.so"]
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    return None


def compile_one(nv, text, opts):
    prog = ctypes.c_void_p()
    if nv.nvrtcCreateProgram(ctypes.byref(prog), text, b"kernel.cu", 0, None, None) != 0:
        return False, "nvrtcCreateProgram failed"
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = nv.nvrtcCompileProgram(prog, len(opts), arr)
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(max(n.value, 1))
    nv.nvrtcGetProgramLog(prog, log)
    nv.nvrtcDestroyProgram(ctypes.byref(prog))
    return rc == 0, log.value.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--lib", default=None)
    a = ap.parse_args()
    nv = load(a.lib)
    if nv is None:
        print("nvrtc-check: NVRTC (libnvrtc) cannot be loaded: no CUDA toolkit here")
        return 2
    srcs = sorted(glob.glob(os.path.join(a.dir, "*.cu")))
    ok = bad = refused = 0
    for f in srcs:
        base = f[:-3]
        with open(f, "rb") as fh:
            text = fh.read()
        opts = [b"-arch=" + a.arch.encode(), b"-std=c++17"]
        if os.path.exists(base + ".opts"):
            with open(base + ".opts", "rb") as fh:
                opts += [o for o in fh.read().split(b"\n") if o]
        good, log = compile_one(nv, text, opts)
        if not os.path.exists(base + ".ok"):
            refused += 1
            continue
        if good:
            ok += 1
        else:
            bad += 1
            print("nvrtc-check: %s does not compile with NVRTC for %s:\n%s" % (f, a.arch, log[:4000]))
    print("nvrtc-check: %d programs the emulated device compiled: %d compile with NVRTC for %s, %d do not; "
          "%d refused by both sides' tests (intentional errors)" % (ok + bad, ok, a.arch, bad, refused))
    return 1 if bad or ok + bad == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
