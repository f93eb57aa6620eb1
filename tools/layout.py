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
    return len(parts) == 3 and parts[0] == "src" and parts[1] in ("cpu", "cuda", "emu", "mpi")


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
            # the registry naming a backend's descriptor is the door the
            # core goes through (src/core/backend.h), not a call into the backend
            if dst and src == "src/core/registry.c" and is_backend(dst):
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
    if comps:
        print("layout: %d import circle%s among %d files" % (len(comps), "" if len(comps) == 1 else "s",
                                                          sum(len(c) for c in comps)))
        return 1 if args.strict else 0
    print("layout: no import circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
