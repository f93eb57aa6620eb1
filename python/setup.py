"""Build of the ndgpu package (pip install ./python, make wheel).

The package carries libndgpu.so inside itself (ndgpu/libndgpu.so, found
first by _lib.py), copied at build time from $NDGPU_LIBRARY, else the
checkout's build/libndgpu.so, else build-cpu/libndgpu.so (make lib builds
it); the build stops with that advice when none exists.

It compiles the optional module ndgpu._core (ndgpu/_core.c, the operators
and elementwise functions in C) against the stable ABI; where that fails
(no C compiler, no Python headers) the package installs without it and
runs its ctypes path. The module uses the checkout's include/ when there
is one and its own copy of the few declarations it needs otherwise.

Where the library is linked against scipy-openblas32's libscipy_openblas.so
(its dynamic section names it), the package depends on scipy-openblas32:
_lib.py loads that library from the module when the rpath baked into
libndgpu.so does not point at it.
"""
import os
import shutil
import struct
import sys

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the repository, in a checkout


def find_library():
    """The libndgpu.so to ship, or None."""
    env = os.environ.get("NDGPU_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise SystemExit(f"ndgpu: NDGPU_LIBRARY={env} does not exist")
        return env
    for d in ("build", "build-cpu"):
        p = os.path.join(ROOT, d, "libndgpu.so")
        if os.path.isfile(p):
            return p
    return None


NO_LIBRARY = ("ndgpu: libndgpu.so not found (looked at $NDGPU_LIBRARY, {0}/build/libndgpu.so and "
              "{0}/build-cpu/libndgpu.so): run `make lib` in the repository first, or set "
              "NDGPU_LIBRARY=/path/to/libndgpu.so".format(ROOT))


def elf_needed(path):
    """The DT_NEEDED entries of an ELF shared library (what `readelf -d`
    lists as NEEDED); [] for a file that is not ELF."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return []
    is64 = data[4] == 2
    e = "<" if data[5] == 1 else ">"
    if is64:
        (shoff,) = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x3A)
        sh_fmt, dyn_fmt = e + "IIQQQQIIQQ", e + "qQ"
    else:
        (shoff,) = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x2E)
        sh_fmt, dyn_fmt = e + "IIIIIIIIII", e + "iI"
    # section headers: name, type, flags, addr, offset, size, link, info, addralign, entsize
    secs = [struct.unpack_from(sh_fmt, data, shoff + i * shentsize) for i in range(shnum)]
    out = []
    step = struct.calcsize(dyn_fmt)
    for s in secs:
        if s[1] != 6:  # SHT_DYNAMIC
            continue
        strtab = secs[s[6]][4]
        for off in range(s[4], s[4] + s[5], step):
            tag, val = struct.unpack_from(dyn_fmt, data, off)
            if tag == 0:  # DT_NULL
                break
            if tag == 1:  # DT_NEEDED
                start = strtab + val
                out.append(data[start:data.index(b"\0", start)].decode())
    return out


def requirements(lib):
    if lib and any(n.startswith("libscipy_openblas") for n in elf_needed(lib)):
        return ["scipy-openblas32"]
    return []


class BuildPy(build_py):
    """The pure modules, and libndgpu.so beside them."""

    def run(self):
        super().run()
        lib = find_library()
        if lib is None:
            raise SystemExit(NO_LIBRARY)
        dst = os.path.join(self.build_lib, "ndgpu", "libndgpu.so")
        self.mkpath(os.path.dirname(dst))
        # always copied: copy_file would keep an older build's library when
        # the one named now is older than it
        shutil.copyfile(lib, dst)


include = os.path.join(ROOT, "include")
have_headers = os.path.isfile(os.path.join(include, "ndgpu.h"))
# The stable ABI of 3.10 where the building Python has it (METH_FASTCALL for
# binop/unop, ~0.04 us a call), else 3.8's (docs/python.md has the figures)
limited = 0x030A0000 if sys.version_info >= (3, 10) else 0x03080000
core = Extension(
    "ndgpu._core",
    sources=["ndgpu/_core.c"],
    include_dirs=[include] if have_headers else [],
    define_macros=[("Py_LIMITED_API", hex(limited))] + ([("NDGPU_HAVE_HEADERS", "1")] if have_headers else []),
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden"],
    libraries=["dl"],
    py_limited_api=True,
    optional=True,
)

setup(
    ext_modules=[core],
    cmdclass={"build_py": BuildPy},
    install_requires=requirements(find_library()),
    options={"bdist_wheel": {"py_limited_api": "cp%d%d" % divmod(limited >> 16, 0x100)}},
)
