"""plot.py - the PNG of benchmarks/compare.py: one horizontal bar per case,
log-scale speed-ratio axis (libndgpu / NumPy, and / CuPy on a GPU machine),
green where libndgpu is faster, red where slower. Needs matplotlib."""


def plot(rows, png, title, log):
    """rows: compare.py's merged cases. Returns True when the PNG was written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = [(r["label"], r["ratio_numpy"], r["ratio_cupy"]) for r in rows
           if r["ratio_numpy"] or r["ratio_cupy"]]
    if not pts:
        log("compare: no plot: no ratios to plot")
        return False
    labels, yn, yc = [], [], []
    for lab, rn, rc in pts:
        labels.append(lab)
        yn.append(rn or 0)
        yc.append(rc or 0)
    h = max(4.0, 0.16 * len(labels) + 1.5)
    fig, ax = plt.subplots(figsize=(11, h))
    y = list(range(len(labels)))
    colors = ["tab:green" if v >= 1 else "tab:red" for v in yn]
    ax.barh([i + (0.2 if any(yc) else 0) for i in y], [v if v > 0 else float("nan") for v in yn],
            height=0.4 if any(yc) else 0.8, color=colors, label="vs NumPy")
    if any(yc):
        ax.barh([i - 0.2 for i in y], [v if v > 0 else float("nan") for v in yc], height=0.4,
                color="tab:blue", label="vs CuPy")
        ax.legend(loc="lower right")
    ax.set_xscale("log")
    off = 0.2 if any(yc) else 0
    for i, v in enumerate(yn):
        if v > 0:
            ax.text(v, i + off, " %.2f" % v, va="center", fontsize=5)
    for i, v in enumerate(yc):
        if v > 0:
            ax.text(v, i - 0.2, " %.2f" % v, va="center", fontsize=5, color="tab:blue")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("speed ratio libndgpu / reference (> 1: libndgpu faster), log scale")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return True


