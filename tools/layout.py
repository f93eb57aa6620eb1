#!/usr/bin/env python3
"""The layout of the library: which of its files call which, and where the
calls go round in circles.

    python3 tools/layout.py [--build build] [--list] [--strict]   (make layout)

The call graph comes from the object files, not from names: a file A uses
file B when A's object has an undefined symbol that B's object defines
(`nm`), so a backend function is found whatever it is called, and a static
inline helper in a header costs nothing (it is in no object's symbol
table). The registry naming a backend's descriptor is the door the core
goes through, not a call: that edge is left out. Alongside it, the include
graph of the sources (`#include "..."` resolved against the including
file's folder and src/).

It prints the number of files and edges, then every import circle: a set
of files each of which reaches all the others through calls (a strongly
connected component of more than one file), with one symbol per edge of a
shortest way round, so a reader sees why the files are tied. --list also
prints every file with what it uses and what uses it. --strict exits 1
when there is a circle (make layout-check).

--doors checks the rooms of src/ (README "Source map") and exits 1 on a
breach (make check-doors, part of make test):
  - no import circle among the library's files;
  - only src/core/registry.c includes a backend's files; src/cpu and
    src/cuda include only src/core, src/shared and their own folder;
    src/shared includes only src/shared (every folder may include the
    public header, which is not under src/);
  - the base (src/core) uses no symbol of an op family, of src/prof or of
    a backend; a backend uses only symbols of src/core and of its own
    folder (whatever their names: read from the objects); no file outside
    the backends uses a backend's symbol (the registry's descriptors are
    the door, and its table of the profiler's report writers);
  - src/mpi, a separate library on the public API, includes only its own
    folder and src/shared (header-only bodies: the float16 conversions)
    and uses only public symbols (nd_*, never nd__*);
  - the walk of an array through nd_binary (the family's file, what it
    calls, the backend's binary slot and what that calls) stays in at most
    3 folders for every backend.
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict, deque

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def objects(build):
    """{object path: source path} for the library's objects under build/src."""
    out = {}
    base = os.path.join(build, "src")
    for d, _, files in os.walk(base):
        for f in files:
            if not f.endswith(".o"):
                continue
            obj = os.path.join(d, f)
            rel = os.path.relpath(obj, build)[:-2]
            for ext in (".c", ".cu", ".cpp"):
                if os.path.exists(os.path.join(ROOT, rel + ext)):
                    out[obj] = rel + ext
                    break
            else:  # an object built twice from one source (per-ISA twins)
                m = re.match(r"(.*)_(avx2|avx512)$", rel)
                if m:
                    for ext in (".c", ".cpp"):
                        if os.path.exists(os.path.join(ROOT, m.group(1) + ext)):
                            out[obj] = m.group(1) + ext
                            break
    return out


def symbols(obj):
    """(defined, undefined) external symbols of one object."""
    p = subprocess.run(["nm", "-P", obj], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    defined, undefined = set(), set()
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVWGSCui":  # defined here (global; lower case would be local)
            defined.add(name)
    return defined, undefined


def includes(src_root):
    """{file: set of included library files} over src/."""
    graph = {}
    for d, _, files in os.walk(src_root):
        for f in files:
            if not f.endswith((".c", ".h", ".cu", ".cuh", ".cpp")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, ROOT)
            deps = set()
            with open(path, errors="replace") as fh:
                for line in fh:
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    for cand in (os.path.join(d, m.group(1)), os.path.join(src_root, m.group(1))):
                        if os.path.exists(cand):
                            deps.add(os.path.relpath(os.path.normpath(cand), ROOT))
                            break
            graph[rel] = deps
    return graph


def is_backend(path):
    """A file of a backend folder (src/<backend>/, one per registry line)."""
    parts = path.split("/")
    return len(parts) == 3 and parts[0] == "src" and parts[1] in ROLES_BACKEND


# The backend folders: those holding a descriptor source (src/<name>/backend.c, .cu),
# so a new backend is found by its directory.
ROLES_BACKEND = tuple(sorted(d for d in os.listdir(os.path.join(ROOT, "src"))
                             if any(f.startswith("backend.") and not f.endswith(".h") for f in os.listdir(os.path.join(ROOT, "src", d)))
                             if os.path.isdir(os.path.join(ROOT, "src", d))))


def folder(path):
    """The room of a file: "core", "shared", "cpu", an op family ..."""
    parts = path.split("/")
    return parts[1] if len(parts) >= 3 and parts[0] == "src" else ""


def closure(start, edges):
    """Every file reachable from start through call edges (start included)."""
    seen, todo = {start}, [start]
    while todo:
        for w in edges.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def slot_impls(slot):
    """{backend folder: name of the function its descriptor puts in slot}."""
    out = {}
    for b in ROLES_BACKEND:
        for f in sorted(os.listdir(os.path.join(ROOT, "src", b))):
            if not f.startswith("backend."):
                continue
            text = open(os.path.join(ROOT, "src", b, f), errors="replace").read()
            m = re.search(r"\.%s\s*=\s*(\w+)" % slot, text)
            if m:
                out[b] = m.group(1)
    return out


def doors(by_src, defs, edges, inc):
    """The breaches of the rooms' rules (module docstring), as lines."""
    bad = []
    for f, deps in sorted(inc.items()):
        ff = folder(f)
        for d in sorted(deps):
            fd = folder(d)
            if ff == "mpi" and fd not in ("mpi", "shared"):
                bad.append("%s includes %s: src/mpi includes only the public header and src/shared" % (f, d))
            elif fd in ROLES_BACKEND and ff != fd and f != "src/core/registry.c":
                bad.append("%s includes %s: only src/core/registry.c includes a backend" % (f, d))
            elif ff in ROLES_BACKEND and fd not in ("core", "shared", ff):
                bad.append("%s includes %s: a backend includes only src/core, src/shared and its own folder" % (f, d))
            elif ff == "shared" and fd != "shared":
                bad.append("%s includes %s: src/shared includes only src/shared" % (f, d))
    for src, (_, undef) in sorted(by_src.items()):
        fs = folder(src)
        for sym in sorted(undef):
            dst = defs.get(sym)
            if not dst or dst == src:
                continue
            fd = folder(dst)
            if src == "src/core/registry.c" and (fd in ROLES_BACKEND or fd == "prof"):
                continue
            if fs == "mpi":
                if fd != "mpi" and (sym.startswith("nd__") or not sym.startswith("nd_")):
                    bad.append("%s uses %s (%s): src/mpi uses only public symbols" % (src, sym, dst))
            elif fs in ROLES_BACKEND:
                if fd not in ("core", fs):
                    bad.append("%s uses %s (%s): a backend uses only src/core and its own folder" % (src, sym, dst))
            elif fd in ROLES_BACKEND:
                bad.append("%s uses %s (%s): only the registry names a backend" % (src, sym, dst))
            elif fs == "core" and fd != "core":
                bad.append("%s uses %s (%s): the base uses no op family and no report" % (src, sym, dst))
    start = defs.get("nd_binary")
    if not start:
        bad.append("nd_binary is defined by no library object")
    else:
        for b, fn in sorted(slot_impls("binary").items()):
            impl = defs.get(fn)
            if not impl:
                continue  # that backend is not in this build
            walk = closure(start, edges) | closure(impl, edges)
            rooms = sorted({folder(x) for x in walk})
            print("layout: nd_binary on %s walks %d folders: %s" % (b, len(rooms), ", ".join(rooms)))
            if len(rooms) > 3:
                bad.append("nd_binary on %s walks %d folders (at most 3): %s" % (b, len(rooms), ", ".join(rooms)))
    return bad


def sccs(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cycle_through(comp, edges, start):
    """A shortest way from start back to start inside comp (BFS)."""
    comp = set(comp)
    prev = {}
    q = deque([start])
    seen = {start}
    while q:
        v = q.popleft()
        for w in sorted(edges.get(v, ())):
            if w not in comp:
                continue
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in seen:
                seen.add(w)
                prev[w] = v
                q.append(w)
    return [start]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build folder whose src/ objects are read (default build)")
    ap.add_argument("--list", action="store_true", help="every file with what it uses and what uses it")
    ap.add_argument("--strict", action="store_true", help="exit 1 when there is an import circle")
    ap.add_argument("--doors", action="store_true", help="check the rooms' rules too; exit 1 on a breach or a circle")
    args = ap.parse_args(argv)
    build = os.path.join(ROOT, args.build) if not os.path.isabs(args.build) else args.build
    objs = objects(build)
    if not objs:
        print("layout: no library objects under %s/src (build the library first)" % args.build)
        return 2
    defs, uses = {}, {}
    by_src = defaultdict(lambda: (set(), set()))
    for obj, src in objs.items():
        d, u = symbols(obj)
        by_src[src][0].update(d)
        by_src[src][1].update(u)
    for src, (d, _) in by_src.items():
        for s in d:
            defs.setdefault(s, src)
    edges, why = defaultdict(set), {}
    for src, (_, u) in by_src.items():
        for s in sorted(u):
            dst = defs.get(s)
            # the registry naming a backend's descriptor (or the profiler's
            # report writers) is the door the core goes through
            # (src/core/backend.h, src/core/prof.h), not a call into them
            if dst and src == "src/core/registry.c" and (is_backend(dst) or dst.startswith("src/prof/")):
                continue
            if dst and dst != src:
                edges[src].add(dst)
                why.setdefault((src, dst), s)
    inc = includes(os.path.join(ROOT, "src"))
    nodes = sorted(by_src)
    comps = [c for c in sccs(nodes, edges) if len(c) > 1]
    nedges = sum(len(v) for v in edges.values())
    ninc = sum(len(v) for v in inc.values())
    print("layout: %d library files with objects (%s), %d call edges between them; %d source files, %d include edges"
          % (len(nodes), args.build, nedges, len(inc), ninc))
    if args.list:
        users = defaultdict(set)
        for a, bs in edges.items():
            for b in bs:
                users[b].add(a)
        for n in nodes:
            print("  %s" % n)
            print("      uses:    %s" % (", ".join(sorted(edges.get(n, ()))) or "-"))
            print("      used by: %s" % (", ".join(sorted(users.get(n, ()))) or "-"))
    for i, comp in enumerate(sorted(comps, key=lambda c: (-len(c), c)), 1):
        way = cycle_through(comp, edges, comp[0])
        steps = " -> ".join("%s (%s)" % (a, why[(a, b)]) for a, b in zip(way, way[1:])) + " -> " + way[0]
        print("layout: circle %d of %d files: %s" % (i, len(comp), " ".join(comp)))
        print("        a way round: %s" % steps)
    breaches = doors(by_src, defs, edges, inc) if args.doors else []
    for line in breaches:
        print("layout: door: %s" % line)
    if comps:
        print("layout: %d import circle%s among %d files" % (len(comps), "" if len(comps) == 1 else "s",
                                                          sum(len(c) for c in comps)))
        return 1 if args.strict or args.doors else 0
    print("layout: no import circle")
    if args.doors:
        print("layout: doors %s (%d breaches)" % ("FAILED" if breaches else "OK", len(breaches)))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
