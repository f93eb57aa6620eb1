#!/usr/bin/env python3
"""Check a Chrome trace written by nd_profiler_export_chrome_trace (and
optionally a summary written by nd_profiler_export_json): it parses as
JSON and has the structure Perfetto and chrome://tracing need.

usage: check_trace.py TRACE.json [SUMMARY.json] [--memory] [--device]
                      [--ranges forward,backward,step] [--ops matmul,add]
                      [--require-ops]

  --memory   a memory counter track must exist ("ph": "C", "memory ...")
  --device   device rows must exist (an op with device time on cuda:N)
  --ranges   these user ranges must appear (cat "range")
  --ops      these ops must appear (cat "op" or "transfer"); not checked,
             with a note, when the trace has no op event at all (a build
             without the op hooks) unless --require-ops

Exits 0 and prints a one-line summary when everything holds, else prints
what failed and exits 1.
"""
import json
import sys


class Fail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)


def ns(v):
    """A trace timestamp (microseconds, 3 decimals) as integer nanoseconds."""
    return int(round(float(v) * 1000.0))


def check_trace(path, want_memory, want_device, ranges, ops, require_ops):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    need(isinstance(doc, dict), "the top level is not an object")
    evs = doc.get("traceEvents")
    need(isinstance(evs, list), "no traceEvents list")
    need(doc.get("displayTimeUnit") in ("ms", "ns"), "displayTimeUnit missing or not ms/ns")
    other = doc.get("otherData", {})
    need(isinstance(other, dict) and isinstance(other.get("libndgpu"), str), "otherData.libndgpu missing")

    procs, threads = {}, {}
    xs, flows_s, flows_f = [], {}, {}
    counters = []
    for i, e in enumerate(evs):
        need(isinstance(e, dict), f"event {i} is not an object")
        need("ph" in e and "name" in e, f"event {i} lacks ph or name: {e}")
        ph = e["ph"]
        if ph == "M":
            need(isinstance(e.get("args", {}).get("name", ""), str), f"metadata {i} without args.name")
            if e["name"] == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif ph == "X":
            for k in ("name", "ph", "ts", "dur", "pid", "tid"):
                need(k in e, f"X event {i} lacks '{k}': {e}")
            need(isinstance(e["name"], str), f"X event {i}: name is not a string")
            need(isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)),
                 f"X event {i}: ts/dur are not numbers")
            need(e["dur"] >= 0, f"X event {i}: negative duration")
            xs.append(e)
        elif ph == "s":
            flows_s[e["id"]] = e
        elif ph == "f":
            flows_f[e["id"]] = e
        elif ph == "C":
            need(isinstance(e.get("args"), dict) and e["args"], f"counter {i} without args")
            counters.append(e)
        elif ph in ("i", "I"):
            need("ts" in e, f"instant event {i} without ts")
        else:
            raise Fail(f"event {i}: unexpected ph '{ph}'")

    need(procs.get(0) == "host", f"pid 0 is not named 'host' (process names: {procs})")
    for e in xs:
        need(e["pid"] in procs, f"X event '{e['name']}' on pid {e['pid']}, which has no process_name")
        need((e["pid"], e["tid"]) in threads, f"X event '{e['name']}' on pid {e['pid']} tid {e['tid']}, which has no thread_name")

    # Host events nest within their thread: child [ts, ts+dur] inside its parent.
    by_thread = {}
    for e in xs:
        if e["pid"] == 0:
            by_thread.setdefault(e["tid"], []).append(e)
    for tid, lst in by_thread.items():
        lst.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        stack = []
        for e in lst:
            b, d = ns(e["ts"]), ns(e["dur"])
            while stack and ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]) <= b and not (
                    d == 0 and ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]) == b):
                stack.pop()
            if stack:
                p = stack[-1]
                pb, pe = ns(p["ts"]), ns(p["ts"]) + ns(p["dur"])
                need(pb <= b and b + d <= pe,
                     f"thread {tid}: '{e['name']}' [{b}, {b + d}] ns overlaps '{p['name']}' [{pb}, {pe}] without nesting")
            stack.append(e)

    cats = {}
    for e in xs:
        cats.setdefault(e.get("cat", ""), []).append(e)
        if e["pid"] == 0 and e["name"].startswith("copy_"):
            need(e.get("cat") == "transfer", f"'{e['name']}' is not in cat 'transfer'")
        if e.get("cat") in ("transfer", "device_transfer"):
            need("cname" in e, f"transfer '{e['name']}' has no cname (not visibly distinct)")
        if e.get("cat") in ("device_op", "device_transfer", "device_range"):
            need(procs.get(e["pid"], "").startswith("cuda:"), f"device event '{e['name']}' not on a cuda:N process")

    has_device_time = any("device time (us)" in e.get("args", {}) for e in xs if e["pid"] == 0)
    devs = cats.get("device_op", []) + cats.get("device_transfer", [])
    if has_device_time or want_device:
        need(devs, "ops have device time but there is no device row")
        need(any(n.startswith("stream ") for (p, t), n in threads.items() if p != 0), "no stream thread names")
    for fid, s in flows_s.items():
        need(fid in flows_f, f"flow {fid} starts but never ends")
    if want_memory:
        need(any(c["name"].startswith("memory ") for c in counters), "no memory counter track")
    names = {(e.get("cat"), e["name"]) for e in xs}
    for r in ranges:
        need(("range", r) in names, f"range '{r}' missing")
    if ops and not any(c in ("op", "transfer") for c, _ in names) and not require_ops:
        print("check_trace: note: the trace has no op events (a build without the op hooks): --ops not checked")
        ops = []
    for o in ops:
        need(("op", o) in names or ("transfer", o) in names, f"op '{o}' missing")
    return (f"{len(evs)} events: {len(xs)} slices on {len(by_thread)} host thread(s), "
            f"{len(devs)} device slices, {len(counters)} memory counter samples, {len(flows_s)} flows")


def check_summary(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    need(isinstance(doc, dict), "summary: the top level is not an object")
    for k in ("libndgpu", "stats", "config", "rows", "sort_by"):
        need(k in doc, f"summary: no '{k}'")
    rows = doc["rows"]
    need(isinstance(rows, list) and rows, "summary: rows is not a non-empty list")
    fields = ("name", "shapes", "kind", "calls", "host_total_ns", "host_self_ns", "host_avg_ns",
              "device_total_ns", "device_self_ns", "device_avg_ns", "bytes", "flops", "mem_self_bytes")
    for r in rows:
        for k in fields:
            need(k in r, f"summary row {r.get('name')} lacks '{k}'")
        need(r["calls"] >= 1, f"summary row {r['name']}: calls < 1")
        need(0 <= r["host_self_ns"] <= r["host_total_ns"], f"summary row {r['name']}: self > total")
    key = {"host_total": "host_total_ns", "host_self": "host_self_ns", "device_total": "device_total_ns",
           "device_self": "device_self_ns", "calls": "calls", "bytes": "bytes", "flops": "flops",
           "memory": "mem_self_bytes", "host_avg": "host_avg_ns", "device_avg": "device_avg_ns"}.get(doc["sort_by"])
    if key:
        vals = [r[key] for r in rows]
        need(vals == sorted(vals, reverse=True), f"summary rows not sorted by {doc['sort_by']}: {vals}")
    return f"{len(rows)} rows sorted by {doc['sort_by']}"


def main(argv):
    pos, want_memory, want_device, ranges, ops, require_ops = [], False, False, [], [], False
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--memory":
            want_memory = True
        elif a == "--device":
            want_device = True
        elif a == "--require-ops":
            require_ops = True
        elif a in ("--ranges", "--ops") and i + 1 < len(argv):
            (ranges if a == "--ranges" else ops).extend(x for x in argv[i + 1].split(",") if x)
            i += 1
        elif a.startswith("--"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            pos.append(a)
        i += 1
    if not 1 <= len(pos) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        msg = check_trace(pos[0], want_memory, want_device, ranges, ops, require_ops)
        print(f"check_trace: {pos[0]}: ok ({msg})")
        if len(pos) == 2:
            print(f"check_trace: {pos[1]}: ok ({check_summary(pos[1])})")
    except (Fail, OSError, ValueError, KeyError, TypeError) as e:
        print(f"check_trace: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
