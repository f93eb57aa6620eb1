#!/usr/bin/env python3
"""The public functions that take an out-pointer, read from the public header.

Reads include/ndgpu.h and every header it includes under include/ndgpu/
(`#include "ndgpu/x.h"` or `<ndgpu/x.h>`, followed recursively), runs them
through the C preprocessor (so declarations written by X-macros, such as
the named elementwise wrappers nd_exp, nd_add, ..., are seen as the
compiler sees them), and lists every ND_API function with an
`nd_array **out` parameter.

    out_api.py list                  the functions, one per line
    out_api.py protos                their prototypes
    out_api.py check TABLE.c ...     every function has an entry in the out
                                     test's adapter tables (TABLE.c, read
                                     through the preprocessor too) and every
                                     entry names such a function; exit 1 and
                                     the missing ones otherwise
    out_api.py stubs TABLE.c ...     adapter stubs (C) for the missing ones

Options: --include DIR (default include), --header FILE (default
DIR/ndgpu.h), --cc CC (default $CC or cc), --cflags FLAGS (extra flags for
reading the tables, e.g. the BLAS include path).

An entry of the tables is written OUT_ENTRY(nd_name, flags) next to its
adapter OUT_ADAPTER(nd_name) { ... } (tests/out_api.h); it expands to
{"nd_name", out_api_nd_name, ...}, and the check looks for that expansion,
so entries made by an X-macro (the named elementwise wrappers) count too.
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"](ndgpu/[^">]+)[">]', re.M)
LINEMARK_RE = re.compile(r'^#\s+\d+\s+"([^"]+)"')
API_MARK = '__attribute__((visibility("default")))'
OUT_PARAM_RE = re.compile(r'^(const\s+)?nd_array\s*\*\s*\*\s*out$')
# what OUT_ENTRY(nd_x, ...) expands to (tests/out_api.h)
ENTRY_RE = re.compile(r'\{\s*"(nd_\w+)"\s*,\s*out_api_')


def public_headers(include_dir, header):
    """The umbrella header and the ndgpu/ headers it includes, recursively."""
    seen, todo = [], [os.path.normpath(header)]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        if not os.path.isfile(path):
            sys.exit(f"out_api.py: {path} is included but does not exist")
        seen.append(path)
        with open(path, encoding="utf-8") as f:
            for inc in INCLUDE_RE.findall(f.read()):
                todo.append(os.path.normpath(os.path.join(include_dir, inc)))
    return seen


def preprocess(cc, args, source):
    cmd = shlex.split(cc) + ["-E"] + args + [source]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit(f"out_api.py: {' '.join(cmd)} failed:\n{res.stderr}")
    return res.stdout


def text_of(pp, files, under=None):
    """The preprocessed text that came from the given files, or from any
    file below the directory `under` (by the preprocessor's linemarkers)."""
    keep, out = False, []
    wanted = {os.path.realpath(f) for f in files}
    below = os.path.realpath(under) + os.sep if under else None
    for line in pp.split("\n"):
        m = LINEMARK_RE.match(line)
        if m:
            path = os.path.realpath(m.group(1))
            keep = path in wanted or bool(below and path.startswith(below))
            continue
        if keep:
            out.append(line)
    return "\n".join(out)


def split_params(params):
    """Top-level comma split (function-pointer parameters have commas inside)."""
    parts, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def strip_attributes(decl):
    """decl without its __attribute__((...)) groups (balanced parentheses)."""
    while True:
        i = decl.find("__attribute__")
        if i < 0:
            return decl
        j, depth = decl.find("(", i), 0
        for k in range(j, len(decl)):
            depth += decl[k] == "("
            depth -= decl[k] == ")"
            if depth == 0:
                break
        decl = decl[:i] + decl[k + 1:]


def declarations(text):
    """(name, prototype, parameters) of every ND_API function declaration."""
    res = []
    for chunk in text.split(API_MARK)[1:]:
        decl = " ".join(chunk.split(";")[0].split("{")[0].split())
        decl = " ".join(strip_attributes(decl).split())
        if not decl.endswith(")"):
            continue  # a variable, not a function
        depth, i = 0, len(decl) - 1
        while i >= 0:  # the parameter list: the last top-level parentheses
            depth += decl[i] == ")"
            depth -= decl[i] == "("
            if depth == 0:
                break
            i -= 1
        m = re.search(r"(\w+)\s*$", decl[:i])
        if m:
            res.append((m.group(1), decl, split_params(decl[i + 1:-1])))
    return res


def out_functions(opts):
    headers = public_headers(opts.include, opts.header)
    pp = preprocess(opts.cc, ["-I" + opts.include], opts.header)
    found, names = [], set()
    # ndgpu/ headers that include each other by a relative name count too
    text = text_of(pp, headers, os.path.join(opts.include, "ndgpu"))
    for name, proto, params in declarations(text):
        if name not in names and any(OUT_PARAM_RE.match(p) for p in params):
            names.add(name)
            found.append((name, proto))
    if not found:
        sys.exit(f"out_api.py: no function with an 'nd_array **out' parameter in {', '.join(headers)}")
    return found


def table_entries(opts, tables):
    names = []
    for t in tables:
        pp = preprocess(opts.cc, ["-I" + opts.include] + shlex.split(opts.cflags), t)
        names += ENTRY_RE.findall(text_of(pp, [t]))
    return names


def stub(name, proto):
    return (f"/* {proto}; */\n"
            f"OUT_ADAPTER({name}) {{ return {name}(o, /* inputs from f */); }}\n"
            f"    OUT_ENTRY({name}, 0), /* in the table */\n")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `out_api.py list | head`
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["list", "protos", "check", "stubs"])
    ap.add_argument("tables", nargs="*")
    ap.add_argument("--include", default="include")
    ap.add_argument("--header")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="")
    opts = ap.parse_args()
    opts.header = opts.header or os.path.join(opts.include, "ndgpu.h")
    funcs = out_functions(opts)
    if opts.command == "list":
        print("\n".join(n for n, _ in funcs))
        return 0
    if opts.command == "protos":
        print("\n".join(p + ";" for _, p in funcs))
        return 0
    if not opts.tables:
        sys.exit(f"out_api.py {opts.command}: name the adapter table sources")
    entries = table_entries(opts, opts.tables)
    have, public = set(entries), {n for n, _ in funcs}
    missing = [(n, p) for n, p in funcs if n not in have]
    if opts.command == "stubs":
        print("\n".join(stub(n, p) for n, p in missing))
        return 0
    stale = sorted(have - public)
    twice = sorted({n for n in entries if entries.count(n) > 1})
    for n, p in missing:
        print(f"out_api.py: {n} takes 'nd_array **out' but has no entry in the out test's tables: {p}")
    for n in stale:
        print(f"out_api.py: the out test's tables have an entry for {n}, which is not a public out-taking function")
    for n in twice:
        print(f"out_api.py: {n} has more than one entry in the out test's tables")
    if missing or stale or twice:
        print(f"out_api.py: add an adapter and OUT_ENTRY() line per missing function to one of "
              f"{', '.join(opts.tables)} (`python3 tools/out_api.py stubs {' '.join(opts.tables)}` writes stubs)")
        return 1
    print(f"out_api.py: the out test covers all {len(funcs)} public functions with an 'nd_array **out' parameter "
          f"(in {', '.join(public_headers(opts.include, opts.header))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
