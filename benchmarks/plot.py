"""plot.py - the PNG and the Markdown summary of benchmarks/compare.py.

The PNG is small multiples: a summary panel on top (the geometric mean of
the speed ratio per family, one bar each) and one panel per family
(elementwise, reductions, matmul, ...; on a GPU machine the cuda:0 cases
against CuPy get panels of their own). In a family panel every case is one
bar, sorted from the slowest to the fastest, on a log-scale ratio axis
(libndgpu speed / reference speed: > 1 means libndgpu is faster) with the
1x line; the cases below 1x are drawn in their own colour and named in the
panel. The Markdown file holds the same summary as a short table, and names
every case below 1x.

    python3 benchmarks/plot.py benchmarks/results/<record>.json [--out stem]

re-renders the PNG and the Markdown of an existing record (the PNG needs
matplotlib; the Markdown does not)."""
import math

FAMILIES = [
    ("elementwise", "elementwise"), ("reduce", "reductions"), ("matmul", "matmul"), ("copy", "copies"),
    ("overhead", "per-call overhead"), ("transfer", "transfers"), ("sort", "sort"), ("index", "indexing"),
    ("scan", "scans"), ("manip", "manipulation"), ("mx", "softmax, cross-entropy"), ("fft", "FFT"),
    ("complex", "complex"), ("linalg", "linear algebra"), ("random", "random distributions"),
]
FAMILY_NAME = dict(FAMILIES)
FAMILY_ORDER = {b: i for i, (b, _) in enumerate(FAMILIES)}
SIDE_NAME = {"numpy": "NumPy", "cupy": "CuPy"}
FAST, SLOW, GEO = "#3b7dd8", "#d9480f", "#444444"   # faster / slower than the reference (colour-blind safe pair)


def short_shape(shape):
    """16000000 -> 1.6e7 (shapes of one big number read better that way)."""
    s = str(shape)
    if s.isdigit() and len(s) >= 6:
        m = "%.2g" % float(s)
        return m.replace("e+0", "e").replace("e+", "e")
    return s


def case_name(row, with_family=False, keep_op=False):
    parts = [row["op"], row["dtype"], short_shape(row["shape"]), row["layout"]]
    if row["op"] == row["bench"] == "matmul" and not (with_family or keep_op):  # "float32 ..." in the matmul panel
        parts = parts[1:]
    if with_family:
        parts.insert(0, row["bench"])
    return " ".join(str(p) for p in parts if p not in (None, ""))


def groups(rows):
    """[(bench, device, side, [(ratio, row), ...]), ...] in family order;
    the cases of each group sorted from the slowest to the fastest."""
    g = {}
    for r in rows:
        # the python family is the package as users run it (the compiled
        # module); its ctypes and C-alone rows are references (compare.py)
        if r["bench"] == "python" and r.get("layout") != "ext":
            continue
        for side in ("numpy", "cupy"):
            v = r.get("ratio_" + side)
            if v and v > 0:
                g.setdefault((r["bench"], r["device"], side), []).append((v, r))
    out = []
    for (b, d, side), pts in sorted(g.items(), key=lambda x: (FAMILY_ORDER.get(x[0][0], 99), x[0][1] != "cpu",
                                                               x[0][2])):
        pts.sort(key=lambda p: p[0])
        out.append((b, d, side, pts))
    return out


def geomean(vals):
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def group_title(b, d, side, multi):
    name = FAMILY_NAME.get(b, b)
    return name + ((", %s vs %s" % (d, SIDE_NAME.get(side, side))) if multi else "")


def summary_lines(rows):
    """The rows of the Markdown table: (family, device, vs, cases, geomean,
    faster, [names of the cases below 1x with their ratios])."""
    out = []
    for b, d, side, pts in groups(rows):
        vals = [v for v, _ in pts]
        slow = ["%s (%.2fx)" % (case_name(r, keep_op=True), v) for v, r in pts if v < 1]
        out.append((FAMILY_NAME.get(b, b), d, SIDE_NAME.get(side, side), len(vals), geomean(vals),
                    sum(1 for v in vals if v > 1), slow))
    return out


def markdown(rows, title, json_name=None):
    """The summary as a short Markdown page (the table, then the cases below 1x)."""
    lines = ["# " + title, ""]
    if json_name:
        lines += ["Every measurement, version and setting: [%s](%s). Ratio = reference time / libndgpu time "
                  "(> 1: libndgpu faster), the best median of each side over the rounds." % (json_name, json_name),
                  ""]
    lines += ["| family | device | vs | cases | geometric mean | faster | below 1x |",
              "|---|---|---|---:|---:|---:|---:|"]
    summ = summary_lines(rows)
    for fam, d, vs, n, g, faster, slow in summ:
        lines.append("| %s | %s | %s | %d | %.2fx | %d | %d |" % (fam, d, vs, n, g, faster, len(slow)))
    allv = [v for _, _, _, pts in groups(rows) for v, _ in pts]
    if allv:
        lines.append("| **all** | | | %d | %.2fx | %d | %d |" % (len(allv), geomean(allv), sum(1 for v in allv if v > 1),
                                                              sum(1 for v in allv if v < 1)))
    below = [(fam, d, vs, s) for fam, d, vs, _, _, _, slow in summ for s in slow]
    lines.append("")
    if below:
        lines.append("Cases below 1x (libndgpu slower than the reference):")
        lines.append("")
        for fam, d, vs, s in below:
            lines.append("- %s, %s vs %s: %s" % (fam, d, vs, s))
    else:
        lines.append("No case below 1x.")
    lines.append("")
    return "\n".join(lines)


def write_markdown(rows, path, title, json_name=None):
    with open(path, "w") as f:
        f.write(markdown(rows, title, json_name))
    return True


def _ratio_axis(ax, lo, hi):
    import matplotlib.ticker as mt
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.axvline(1.0, color="black", linewidth=1.2, zorder=3)
    decades = math.log10(hi / lo)
    ax.xaxis.set_major_locator(mt.LogLocator(base=10, subs=(1.0,) if decades > 2.5 else (1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(mt.FuncFormatter(lambda v, _: ("%gx" % v)))
    ax.xaxis.set_minor_formatter(mt.NullFormatter())
    ax.tick_params(axis="x", labelsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)


def plot(rows, png, title, log, width_px=1600):
    """rows: compare.py's merged cases. Returns True when the PNG was written."""
    gs_ = groups(rows)
    if not gs_:
        log("compare: no plot: no ratios to plot")
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    allv = [v for _, _, _, pts in gs_ for v, _ in pts]
    lo = 10 ** math.floor(math.log10(min(min(allv), 0.9)) - 0.05)
    hi = 10 ** math.ceil(math.log10(max(max(allv), 1.1)) + 0.05)
    multi = len({(d, s) for _, d, s, _ in gs_}) > 1
    dpi = 100
    ncol = 3
    line = 0.16                      # inches per named case (8-point text)
    label_w, right_pad = 2.75, 0.18  # inches: case names left of each panel; gap to the next column
    col_w = width_px / dpi / ncol
    fig_w = width_px / dpi

    # the height each family panel needs: every case named on its own line
    # when there are few; otherwise the sorted distribution, with the slow
    # cases listed (by name) left of their bars
    def need(pts):
        n, nslow = len(pts), sum(1 for v, _ in pts if v < 1)
        if n <= 16:
            return max(1.2, line * n + 0.1)
        return max(2.2, line * (nslow + 3))

    panels = [(b, d, s, pts, need(pts)) for b, d, s, pts in gs_]
    rows_h = [max(p[4] for p in panels[i:i + ncol]) for i in range(0, len(panels), ncol)]
    def ptitle(b, d, s, pts):
        vals = [v for v, _ in pts]
        nslow = sum(1 for v in vals if v < 1)
        head = "%s: %d cases" % (group_title(b, d, s, multi), len(vals))
        tail = "geometric mean %.2fx%s" % (geomean(vals), (", %d below 1x" % nslow) if nslow else "")
        return head + (", " + tail if len(head) + len(tail) < 50 else "\n" + tail)

    titles = [ptitle(b, d, s, pts) for b, d, s, pts, _ in panels]
    two = any("\n" in t for t in titles)
    top_pad, title_h, xlab_h = 0.55, (0.62 if two else 0.42), 0.38
    summ_h = max(2.5, 0.27 * len(panels) + 0.1)   # at least the key beside it
    fig_h = top_pad + title_h + summ_h + xlab_h + sum(title_h + h + xlab_h for h in rows_h) + 0.1
    fig = plt.figure(figsize=(fig_w, fig_h), dpi=dpi)
    fig.suptitle(title, fontsize=11, y=1 - 0.22 / fig_h)

    def add_axes(x_in, y_top_in, w_in, h_in):  # inches from the left and from the top
        return fig.add_axes([x_in / fig_w, 1 - (y_top_in + h_in) / fig_h, w_in / fig_w, h_in / fig_h])

    # the summary panel: the geometric mean per family
    y = top_pad + title_h
    sum_lw = max(label_w, 0.085 * max(len(group_title(b, d, s, multi)) for b, d, s, _, _ in panels) + 0.2)
    ax = add_axes(sum_lw, y, 2 * col_w - sum_lw - right_pad, summ_h)
    names = [group_title(b, d, s, multi) for b, d, s, _, _ in panels]
    gms = [geomean([v for v, _ in pts]) for _, _, _, pts, _ in panels]
    ys = list(range(len(panels)))
    ax.barh(ys, gms, color=[FAST if g >= 1 else SLOW for g in gms], height=0.7, zorder=2)
    for yy, g, (_, _, _, pts, _) in zip(ys, gms, panels):
        nslow = sum(1 for v, _ in pts if v < 1)
        ax.text(g, yy, "  %.2fx  (%d cases%s)" % (g, len(pts), (", %d below 1x" % nslow) if nslow else ""),
                va="center", fontsize=9)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=10)
    for t, g in zip(ax.get_yticklabels(), gms):
        if g < 1:
            t.set_color(SLOW)
    ax.set_ylim(len(panels) - 0.5, -0.5)
    glo = 10 ** math.floor(math.log10(min(min(gms), 0.9)) - 0.05)
    ghi = 10 ** math.ceil(math.log10(max(max(gms), 1.1)) + 0.35)
    _ratio_axis(ax, glo, ghi)
    ax.set_title("Geometric mean of the speed ratio per family (> 1x: libndgpu faster)", fontsize=10.5,
                 loc="left")
    key = ["How to read the panels:",
           "ratio = reference time / libndgpu time,",
           "log scale; the black line is 1x,",
           "the dashed line the family's geometric mean.",
           "One bar per case, the slowest at the top.",
           "Blue: libndgpu faster.",
           "Orange: libndgpu slower (each one named).",
           "",
           "All %d cases: geometric mean %.2fx," % (len(allv), geomean(allv)),
           "%d faster, %d below 1x." % (sum(1 for v in allv if v > 1), sum(1 for v in allv if v < 1))]
    fig.text((2 * col_w + 0.2) / fig_w, 1 - y / fig_h, "\n".join(key), va="top", ha="left", fontsize=10,
             linespacing=1.45)
    y += summ_h + xlab_h

    for i, (b, d, s, pts, _) in enumerate(panels):
        r, c = divmod(i, ncol)
        if c == 0 and r > 0:
            y += title_h + rows_h[r - 1] + xlab_h
        ax = add_axes(c * col_w + label_w, y + title_h, col_w - label_w - right_pad, pts and panels[i][4])
        vals = [v for v, _ in pts]
        n = len(vals)
        ys = list(range(n))
        ax.barh(ys, vals, color=[FAST if v >= 1 else SLOW for v in vals], height=0.8 if n <= 40 else 1.0,
                zorder=2, linewidth=0)
        _ratio_axis(ax, lo, hi)
        ax.set_ylim(n - 0.5, -0.5)
        g = geomean(vals)
        ax.axvline(g, color=GEO, linestyle="--", linewidth=1, zorder=3)
        slow = [(v, rr) for v, rr in pts if v < 1]
        fig.text((c * col_w + 0.15) / fig_w, 1 - (y + title_h - 0.08) / fig_h, titles[i],
                 fontsize=10.5, ha="left", va="bottom", fontweight="bold", linespacing=1.3)
        if n <= 16:   # every case named on its bar's line
            ax.set_yticks(ys)
            ax.set_yticklabels([case_name(rr) for _, rr in pts], fontsize=8)
            for t, v in zip(ax.get_yticklabels(), vals):
                if v < 1:
                    t.set_color(SLOW)
        else:          # the distribution; the slow cases named left of their bars, at the top
            ax.set_yticks([])
            lines = ["%s  %.2fx" % (case_name(rr), v) for v, rr in slow]
            fig.text((c * col_w + label_w - 0.08) / fig_w, 1 - (y + title_h) / fig_h,
                     "\n".join(lines + ([""] if lines else []) + ["%d cases, sorted" % n]), va="top", ha="right",
                     fontsize=8, color=SLOW if lines else "black", linespacing=1.25)
    fig.savefig(png, dpi=dpi)
    plt.close(fig)
    return True


def main():
    import argparse
    import json
    import os
    import sys
    ap = argparse.ArgumentParser(description="re-render the plot and the Markdown summary of a benchmark record")
    ap.add_argument("record", help="a benchmarks/results/*.json record written by compare.py")
    ap.add_argument("--out", help="output stem (default: the record's path without .json)")
    ap.add_argument("--no-png", action="store_true", help="only the Markdown")
    a = ap.parse_args()
    with open(a.record) as f:
        rec = json.load(f)
    rows = rec.get("cases") or []
    stem = a.out or os.path.splitext(a.record)[0]
    title = record_title(rec)
    write_markdown(rows, stem + ".md", title, os.path.basename(a.record))
    print("plot: wrote %s.md" % stem)
    if not a.no_png:
        if plot(rows, stem + ".png", title, lambda m: sys.stderr.write(m + "\n")):
            print("plot: wrote %s.png" % stem)
    return 0


def record_title(rec):
    lib = rec.get("libndgpu") or {}
    np_ = rec.get("numpy") or {}
    cp = rec.get("cupy") or {}
    return "libndgpu %s vs NumPy %s%s on %s, %s threads, BLAS core %s, CPU path %s, %s%s" % (
        lib.get("version"), np_.get("version", "-"), (" / CuPy %s" % cp["version"]) if cp.get("version") else "",
        rec.get("machine_kind"), rec.get("threads"), lib.get("blas_core"), lib.get("cpu_path"), rec.get("date"),
        " (quick)" if rec.get("quick") else "")


if __name__ == "__main__":
    raise SystemExit(main())
