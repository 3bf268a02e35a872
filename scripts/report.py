#!/usr/bin/env python3
"""The papers' experiments reproduced: runs the simple-bench suites (each
one against its anchor, side by side), and writes BUILD/report/index.md
with one PNG plot per suite (gnuplot) and a summary table: for every row,
our time, the anchor's time and the ratio.

    scripts/report.py BUILD [--quick] [--only SUITE,SUITE...]

On the virtual cluster (2 nodes x 2 threads) when it can be made (root,
network namespaces), on local processes otherwise. Suites that are not in
this build of simple-bench are skipped with a note."""

import csv
import fcntl
import math
import os
import subprocess
import sys
import shutil
import textwrap
import time

# name, what it reproduces, whether it takes -N/--vcluster, and the CSV
# columns: the row's group, the x axis, our time, the anchor's time (None:
# the first other time column). Optional: id (the section's name when one
# suite runs more than once), args (options always given), full_args /
# quick_args (options of the full or quick tour: sizes and rounds that keep
# the tour within its time), vc_layout and local (the layout on the virtual
# cluster and without it), reuse (plot another section's table, no run).
SUITES = [
    dict(name="node", title="paper 001 Fig. 1 (one node): global sum, threads of one process "
         "against MPI_Allreduce among as many ranks", nodes=False, group="op", x="bytes",
         ours="simple_us", anchor="mpi_us"),
    dict(name="coll", title="paper 000 Fig. 4, paper 002 Fig. 6: hybrid collectives (reduction, "
         "all-to-all, ...) against flat MPI (best of Open MPI default and HAN)", nodes=True,
         group="op", x="bytes", ours="simple_us", anchor="anchor_us", panels=True,
         anchor_label="MPI (faster of default, HAN)",
         # to 1 MiB: the 4 MiB rows took a third of the suite's time
         full_args=["--rounds", "3", "--max-bytes", "1M"]),
    dict(name="transpose", title="paper 002 Fig. 6(c) and Fig. 5(c): matrix transpose, and "
         "rows in blocks converted to rows dealt cyclically and back, hybrid against flat MPI "
         "(MPI_Alltoall, MPI_Alltoallv)", nodes=True, group="op", x="n", ours="simple_us",
         anchor="mpi_us", args=["--ops", "transpose,block-cyclic,cyclic-block"],
         full_args=["--max-n", "4096", "--rounds", "3"]),
    dict(name="pingpong", title="paper 003 Fig. 3: ping-pong latency against message size, "
         "simple against raw MPI", nodes=False, group="row", x="bytes", ours="simple_us",
         anchor="mpi_us", anchor_label="MPI", xlabel="message size (B)",
         full_args=["--rounds", "3"]),
    dict(name="rma", title="paper 004: one-sided puts/gets and supersteps, MPI windows "
         "(onesided) against two-sided messages", nodes=True, group="op", x="bytes",
         ours="onesided_us", anchor="twosided_us",
         full_args=["--rounds", "3"]),
    dict(id="coll-1thread", name="coll", title="paper 002 Fig. 6 (one thread per node): "
         "reduction and all-to-all, hybrid with 1 thread per node against flat MPI", nodes=True,
         group="op", x="bytes", ours="simple_us", anchor="anchor_us", panels=True,
         anchor_label="MPI (faster of default, HAN)", args=["--only", "reduce,allreduce,alltoall"],
         vc_layout=["-N", "2", "-t", "1"],
         local=["-N", "2", "-t", "1"], full_args=["--rounds", "3", "--max-bytes", "1M"]),
    dict(name="sort", title="paper 000 radix sort, paper 004 RDXSORT: hybrid against flat MPI "
         "(the same algorithm, one rank per thread)", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us", ours_label="hybrid",
         anchor_label="flat MPI (same algorithm)",
         full_args=["--max-n", str(1 << 24), "--rounds", "3"]),
    dict(id="sort-rdx", name="sort", title="paper 004 Sec. 5: RDXSORT (puts per digit on the "
         "one-sided layer) against the flat-MPI radix sort", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us", ours_label="hybrid",
         anchor_label="flat MPI radix sort", args=["--algo", "rdx"],
         full_args=["--max-n", str(1 << 22), "--rounds", "1"]),
    dict(id="sort-rdxopt", name="sort", title="paper 004 Sec. 5: RDXSORTOPT (staggered start "
         "digits) against the flat-MPI radix sort", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us", ours_label="hybrid",
         anchor_label="flat MPI radix sort", args=["--algo", "rdxopt"],
         full_args=["--max-n", str(1 << 22), "--rounds", "1"]),
    dict(name="fft", title="paper 000, paper 002 Sec. 3.3: 2D FFT, hybrid against FFTW-MPI "
         "(best of flat and threaded)", nodes=True, group="output", x="n", ours="simple_us",
         anchor="anchor_us", anchor_label="FFTW-MPI (faster of flat, threaded)",
         # to 1024: n = 2048 (its FFTW plans and runs) took 60 of the suite's 100 s;
         # docs/bench.md has the larger sizes
         full_args=["--max-n", "1024", "--rounds", "3"]),
    dict(name="queens", title="paper 000: n-queens, parallel time against the classic "
         "sequential solver", nodes=False, group=None, x="n", ours="simple_p_s",
         anchor="classic_s",
         # n = 17 alone takes two minutes here: the tour stops at 16.
         full_args=["--n", "16", "--rounds", "1"]),
    dict(name="matmul", title="paper 004 Figs. 7-8: Cannon with put against ScaLAPACK pdgemm",
         nodes=True, group=None, x="n", ours="put_us", anchor="pdgemm_us",
         local=["-N", "1", "-t", "4"],  # a q x q grid
         full_args=["--max-n", "1024", "--rounds", "3"]),
    dict(id="matmul-get", name="matmul", reuse="matmul", title="paper 004 Fig. 8: Cannon "
         "with get (MatMulG) against ScaLAPACK pdgemm", nodes=True, group=None, x="n",
         ours="get_us", anchor="pdgemm_us", local=["-N", "1", "-t", "4"]),
    dict(name="as", title="paper 004 Sec. 3, As suite: total exchange per side (dashed: fit "
         "L + g h; tests 1-5 and g, L per level in the output)", nodes=True, group="side",
         x="h_words", ours="us", anchor=None,
         # to h = 16384: the two longest exchanges took 60 of the sweep's 90 s
         full_args=["--max-h", str(1 << 14), "--rounds", "1"]),
]

TIME_SUFFIXES = ("_us", "_ms", "_s")


def can_vcluster():
    if os.geteuid() != 0:
        return False
    probe = "simple-probe-%d" % os.getpid()
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return False
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return True


def suite_known(bench, name):
    out = subprocess.run([bench, "--help"], capture_output=True, text=True)
    return any(line.split()[:1] == [name] for line in (out.stdout + out.stderr).splitlines())


def pick(cols, want, avoid=()):
    """The column named `want`, or the first time column not in avoid."""
    if want and want in cols:
        return want
    for c in cols:
        if c.endswith(TIME_SUFFIXES) and c not in avoid:
            return c
    return None


def to_float(v):
    try:
        f = float(v)
        return f if math.isfinite(f) else None
    except (TypeError, ValueError):
        return None


# One colour per series group (gnuplot's default cycle repeats after 8).
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#000080", "#008000", "#800000", "#ff1493",
           "#4682b4", "#daa520"]

# What each suite's x axis is, with its unit.
XLABELS = {"bytes": "bytes per processor (B)", "n": "problem size n", "h_words":
           "h (words of 8 B per processor)"}


def series_name(col):
    """A series named by what ran: the CSV column without its unit."""
    return col.rsplit("_", 1)[0] if col.endswith(TIME_SUFFIXES) else col


def plot(outdir, s, rows, cols):
    """One log-log panel: our time (solid) and the anchor's (dashed) per
    group, one colour per group. None when no group has three points: a
    plot of one or two points says nothing a table does not."""
    x, ours, anchor, group = s["xcol"], s["ourscol"], s["anchorcol"], s.get("group")
    if not (x and ours and anchor) or x not in cols:
        return None
    groups = {}
    for r in rows:
        g = r.get(group, "") if group else s["name"]
        if g == "floor" or (s["name"] == "pingpong" and g.startswith("probe")):
            continue
        xv, o, a = to_float(r.get(x)), to_float(r.get(ours)), to_float(r.get(anchor))
        if xv is None or xv <= 0 or o is None or a is None or o <= 0 or a <= 0:
            continue
        groups.setdefault(g, []).append((xv, o, a))
    groups = {g: p for g, p in groups.items() if len(p) >= 3}
    if not groups:
        return None
    if s.get("panels"):
        return plot_panels(outdir, s, groups)
    dat = os.path.join(outdir, s.get("id", s["name"]) + ".dat")
    with open(dat, "w") as f:
        for g, pts in groups.items():
            f.write("# %s\n" % g)
            for p in sorted(pts):
                f.write("%g %g %g\n" % p)
            f.write("\n\n")
    png = s.get("id", s["name"]) + ".png"
    unit = ours.rsplit("_", 1)[-1]
    gp = ["set terminal pngcairo size 1000,640" if has_pngcairo() else "set terminal png size 1000,640",
          "set output '%s'" % os.path.join(outdir, png),
          "set title \"%s\" noenhanced font ',10'" % gp_title(s["title"]),
          "set logscale xy", "set xlabel '%s' noenhanced" % s.get("xlabel", XLABELS.get(x, x)),
          "set ylabel 'time per call (%s)' noenhanced" % unit,
          # below, not right: long series names on the right squeezed the
          # plot until its centred title ran off the canvas
          "set key below noenhanced", "set grid"]
    plots = []
    on, an = s.get("ours_label", series_name(ours)), s.get("anchor_label", series_name(anchor))
    for i, g in enumerate(groups):
        c = PALETTE[i % len(PALETTE)]
        plots.append("'%s' index %d using 1:2 with linespoints lc rgb '%s' dt 1 pt 7 title '%s %s'"
                     % (dat, i, c, g, on))
        if g == "intra-buf":  # its MPI side is the intra row's, drawn once
            continue
        plots.append("'%s' index %d using 1:3 with linespoints lc rgb '%s' dt 2 pt 6 title '%s %s'"
                     % (dat, i, c, g, an))
    gp.append("plot " + ", ".join(plots))
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    if r.returncode != 0:
        print("report: gnuplot failed for %s: %s" % (s["name"], r.stderr.strip()), file=sys.stderr)
        return None
    return png


def plot_panels(outdir, s, groups):
    """One panel per collective (its own colour), simple solid and the
    anchor dashed, log-log, bytes per processor."""
    sid = s.get("id", s["name"])
    dat = os.path.join(outdir, sid + ".dat")
    with open(dat, "w") as f:
        for g, pts in groups.items():
            for p in sorted(pts):
                f.write("%g %g %g\n" % p)
            f.write("\n\n")
    n = len(groups)
    cols = 1 if n == 1 else 2 if n <= 4 else 3 if n <= 9 else 4
    rows = (n + cols - 1) // cols
    gp = ["set terminal pngcairo size %d,%d font ',9'" % (380 * cols, 300 * rows + 40)
          if has_pngcairo() else "set terminal png size %d,%d" % (380 * cols, 300 * rows + 40),
          "set output '%s'" % os.path.join(outdir, sid + ".png"),
          "set multiplot layout %d,%d title \"%s\" noenhanced" % (rows, cols, gp_title(s["title"])),
          "set logscale xy", "set grid", "set key top left noenhanced font ',8'",
          "set xlabel 'bytes per processor (B)'", "set ylabel 'time per call (us)'"]
    an = s.get("anchor_label", series_name(s["anchorcol"]))
    for i, g in enumerate(groups):
        c = PALETTE[i % len(PALETTE)]
        gp.append("set title '%s' noenhanced" % g)
        gp.append("plot '%s' index %d using 1:2 with linespoints lc rgb '%s' lw 2 pt 7 title "
                  "'simple', '' index %d using 1:3 with linespoints lc rgb '%s' dt 2 pt 6 title "
                  "'%s'" % (dat, i, c, i, c, an))
    gp.append("unset multiplot")
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    if r.returncode != 0:
        print("report: gnuplot failed for %s: %s" % (sid, r.stderr.strip()), file=sys.stderr)
        return None
    return sid + ".png"


def gnuplot(outdir, png, lines):
    gp = ["set terminal pngcairo size 1000,640" if has_pngcairo() else "set terminal png size 1000,640",
          "set output '%s'" % os.path.join(outdir, png)] + lines
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    if r.returncode != 0:
        print("report: gnuplot failed for %s: %s" % (png, r.stderr.strip()), file=sys.stderr)
        return None
    return png


def pingpong_bandwidth(outdir, rows):
    """Paper 003's figure: bandwidth against size per row, simple and raw
    MPI, with the hardware floor of one intra-node message as a line."""
    floor = [to_float(r.get("simple_us")) for r in rows if r.get("row") == "floor"]
    groups = {}
    for r in rows:
        g, b = r.get("row", ""), to_float(r.get("bytes"))
        sb, mb = to_float(r.get("simple_MBps")), to_float(r.get("mpi_MBps"))
        if g in ("intra", "intra-buf", "inter") and b and sb and mb:
            groups.setdefault(g, []).append((b, sb, mb))
    groups = {g: p for g, p in groups.items() if len(p) >= 3}
    if not groups:
        return None
    dat = os.path.join(outdir, "pingpong-bw.dat")
    with open(dat, "w") as f:
        for g, pts in groups.items():
            for p in sorted(pts):
                f.write("%g %g %g\n" % p)
            f.write("\n\n")
    plots = []
    for i, g in enumerate(groups):
        c = PALETTE[i]
        name = "intra-buf (zero-copy hand-off)" if g == "intra-buf" else g
        plots.append("'%s' index %d using 1:2 with linespoints lc rgb '%s' pt 7 title '%s simple'"
                     % (dat, i, c, name))
        if g != "intra-buf":  # its MPI side is the intra row's
            plots.append("'%s' index %d using 1:3 with linespoints lc rgb '%s' dt 2 pt 6 "
                         "title '%s MPI'" % (dat, i, c, g))
    if floor and floor[0]:
        # The floor: one 8-byte word handed between two cores through one
        # cache line, no library: the most any 8-byte message can reach.
        with open(dat, "a") as f:
            f.write("8 %g\n" % (8 / floor[0]))
        plots.append("'%s' index %d using 1:2 with points pt 5 ps 2 lc rgb 'black' title "
                     "'floor: 8 B through one cache line, %.3f us one way'"
                     % (dat, len(groups), floor[0]))
    return gnuplot(outdir, "pingpong-bw.png", [
        "set title \"%s\" noenhanced font ',10'" % gp_title(
            "paper 003 Fig. 3: ping-pong bandwidth against message size (bytes over the half "
            "round trip); the floor is the hardware's one-line hand-off between two cores"),
        "set logscale xy", "set xlabel 'message size (B)'", "set ylabel 'bandwidth (MB/s)'",
        "set key bottom right noenhanced", "set grid", "plot " + ", ".join(plots)])


def as_probe(outdir, rows):
    """The BSP probe per level (intra-node, inter-node, whole job): g and L
    by least squares over h >= p, per side, as a table and a plot of t
    against h per level."""
    p = None
    data = {}
    for r in rows:
        if r.get("test") not in ("intra", "inter", "whole"):
            continue
        if p is None:
            p = int(to_float(r.get("nodes")) or 1) * int(to_float(r.get("threads")) or 1)
        h, t = to_float(r.get("h_words")), to_float(r.get("us"))
        if h is not None and t is not None:
            data.setdefault(r["test"], {}).setdefault(r.get("side", ""), []).append((h, t))
    if not data:
        return None, None
    fits = []
    for lvl in ("intra", "inter", "whole"):
        for side, pts in data.get(lvl, {}).items():
            pts = [(h, t) for h, t in pts if h >= (p or 1)]
            if len(pts) < 3:
                continue
            n = len(pts)
            mx, my = sum(h for h, _ in pts) / n, sum(t for _, t in pts) / n
            sxx = sum((h - mx) ** 2 for h, _ in pts)
            g = sum((h - mx) * (t - my) for h, t in pts) / sxx if sxx else float("nan")
            fits.append((lvl, side, g, my - g * mx))
    lines = ["| level | side | g (us per word) | L (us) |", "| --- | --- | --- | --- |"]
    lines += ["| %s | %s | %.4f | %.1f |" % f for f in fits]
    sides = sorted({s for lv in data.values() for s in lv})
    dat = os.path.join(outdir, "as-probe.dat")
    gp = ["set multiplot layout 1,3 title \"the BSP probe per level: superstep time against h "
          "single words per processor (g is the slope, L the intercept; log scale)\" noenhanced",
          "set grid", "set logscale y", "set key top left noenhanced font ',8'",
          "set xlabel 'h (words per processor)'", "set ylabel 'time per superstep (us)'"]
    blocks = 0
    with open(dat, "w") as f:
        for lvl in ("intra", "inter", "whole"):
            series = []
            for i, side in enumerate(sides):
                pts = sorted(data.get(lvl, {}).get(side, []))
                if len(pts) < 3:
                    continue
                for h, t in pts:
                    f.write("%g %g\n" % (h, t))
                f.write("\n\n")
                series.append("'%s' index %d using 1:2 with linespoints lc rgb '%s' pt 7 ps 0.5 "
                              "title '%s'" % (dat, blocks, PALETTE[i % len(PALETTE)], side))
                blocks += 1
            gp.append("set title '%s'" % lvl)
            gp.append("plot " + ", ".join(series) if series else
                      "plot [0:1] 1/0 title 'n/a at this layout'")
    gp.append("unset multiplot")
    gp = ["set terminal pngcairo size 1500,520 font ',9'" if has_pngcairo()
          else "set terminal png size 1500,520",
          "set output '%s'" % os.path.join(outdir, "as-probe.png")] + gp
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    return "\n".join(lines) + "\n", ("as-probe.png" if r.returncode == 0 else None)


def as_per_word(outdir, rows):
    """Paper 004 Fig. 5: t/h against h for the total exchange, per side."""
    groups = {}
    for r in rows:
        if r.get("test") != "sweep":
            continue
        h, t = to_float(r.get("h_words")), to_float(r.get("us"))
        if h and t:
            groups.setdefault(r.get("side", ""), []).append((h, t / h))
    groups = {g: p for g, p in groups.items() if len(p) >= 3}
    if not groups:
        return None
    dat = os.path.join(outdir, "as-th.dat")
    with open(dat, "w") as f:
        for g, pts in groups.items():
            for p in sorted(pts):
                f.write("%g %g\n" % p)
            f.write("\n\n")
    plots = ["'%s' index %d using 1:2 with linespoints lc rgb '%s' pt 7 title '%s'"
             % (dat, i, PALETTE[i % len(PALETTE)], g) for i, g in enumerate(groups)]
    return gnuplot(outdir, "as-th.png", [
        "set title \"paper 004 Fig. 5: total exchange, time per word t/h against h, per side\" "
        "noenhanced font ',10'", "set logscale xy",
        "set xlabel 'h (words of 8 B per processor)'", "set ylabel 't/h (us per word)'",
        "set key outside right noenhanced", "set grid", "plot " + ", ".join(plots)])


_pngcairo = None


def gp_title(text):
    """A plot title for gnuplot: quotes made safe, wrapped to fit the plot."""
    return "\\n".join(textwrap.wrap(text.replace('"', "'"), 110))


def has_pngcairo():
    global _pngcairo
    if _pngcairo is None:
        r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
        _pngcairo = "pngcairo" in (r.stdout + r.stderr)
    return _pngcairo


def global_sum_sweep(bench, outdir, counts):
    """Paper 001 Fig. 1: the time of a global sum of one double against the
    number of processors, the two-level sum (threads of one process) against
    MPI_Allreduce among as many ranks; one `simple-bench node` run per count.
    Returns (markdown section, summary rows), or (None, []) if no run worked."""
    pts = []
    for t in counts:
        path = os.path.join(outdir, "globalsum-%d.csv" % t)
        node_csv = os.path.join(outdir, "node.csv")
        if t == 2 and os.path.exists(node_csv):
            # The node section's run is this point (its default is 2
            # threads): one measurement, so the two figures agree.
            path = node_csv
            r = subprocess.CompletedProcess([], 0)
        else:
            r = subprocess.run([bench, "node", "-t", str(t), "--quick", "--csv", path],
                               capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(path):
            print("report: node -t %d failed (exit %d)" % (t, r.returncode), file=sys.stderr)
            continue
        with open(path) as f:
            for row in csv.DictReader(f):
                if row.get("op") == "allreduce" and row.get("bytes") == "8":
                    o, a = to_float(row.get("simple_us")), to_float(row.get("mpi_us"))
                    if o and a:
                        pts.append((t, o, a))
    if not pts:
        return None, []
    title = "paper 001 Fig. 1: global sum of one double against processors, two-level (threads " \
            "of one process) against MPI_Allreduce (one rank per processor)"
    dat = os.path.join(outdir, "globalsum.dat")
    with open(dat, "w") as f:
        for p_, o, a in pts:
            f.write("%d %g %g\n" % (p_, o, a))
    png = "globalsum.png"
    gp = ["set terminal pngcairo size 1000,640" if has_pngcairo() else "set terminal png size 1000,640",
          "set output '%s'" % os.path.join(outdir, png),
          "set title \"%s\" noenhanced font ',10'" % gp_title(title), "set logscale x 2",
          "set xlabel 'processors'", "set ylabel 'time (us)'", "set key top left", "set grid",
          "set yrange [0:*]",
          "plot '%s' using 1:2 with linespoints title 'simple (two-level)', "
          "'%s' using 1:3 with linespoints dt 2 title 'MPI_Allreduce' noenhanced" % (dat, dat)]
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    lines = ["## globalsum\n", title + ".\n",
             "`simple-bench node -t P --quick` for P = %s; the 8-byte allreduce row. Ran on: "
             "one host.\n" % ", ".join(str(t) for t in counts),
             "The point at 2 processors is the `node` section's own run (its 8-byte allreduce), "
             "so the two figures agree. They once came from two runs and disagreed (0.08 "
             "against 0.37 us): on this 2-core machine, shared with other jobs, the two "
             "pinned threads hand a cache line between the cores in 0.05 us on one placement "
             "and 0.19 us on another (the ping-pong's `floor` row measures it in each run), "
             "and a thread descheduled mid-sample adds a wake-up; compare the two sides within "
             "one run, never one run's simple with another's.\n",
             "| processors | simple (us) | MPI_Allreduce (us) | ratio |", "| --- | --- | --- | --- |"]
    lines += ["| %d | %.3f | %.3f | %.2f |" % (p_, o, a, a / o) for p_, o, a in pts]
    lines.append("")
    if r.returncode == 0:
        lines.append("![%s](%s)\n" % (title, png))
    rows = [("globalsum", "p=%d" % p_, o, "simple_us", a, "mpi_us", a / o, "one host")
            for p_, o, a in pts]
    return "\n".join(lines), rows


def run_text(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr.strip()[-1500:]


def scale_section(bench, outdir, vc, quick):
    """What crosses the network and what memory a node holds, counted
    (simple-bench traffic), and the cost model's check and projections
    (simple-bench model)."""
    out = ["## Scale\n",
           "What can be measured exactly at any scale here is what crosses between nodes and "
           "what memory each node holds; time at scale is projected by the cost model "
           "(`bench/model/model.tsv`, `docs/model.md`), checked where it can run here.\n"]
    # 4 x 8 takes about a minute here (8 x 8 three: `simple-bench traffic
    # -N 8 -t 8 --vcluster`, docs/bench.md); the quick tour counts 2 x 4.
    layouts = ([["-N", "2", "-t", "4"]] if quick else [["-N", "4", "-t", "8"]]) \
        if vc else [["-N", "2", "-t", "2"]]
    for lay in layouts:
        cmd = [bench, "traffic"] + lay + (["--vcluster"] if vc else []) + ["--quick", "--csv",
               os.path.join(outdir, "traffic-%sx%s.csv" % (lay[1], lay[3]))]
        t0 = time.time()
        rc, so, se = run_text(cmd)
        out.append("### Traffic and memory, %s x %s\n" % (lay[1], lay[3]))
        out.append("`simple-bench %s` (%.0f s; oversubscribed, counts only, no times). Ran on: "
                   "%s. Per call, summed over the job: `h_msgs`/`f_msgs` messages to other "
                   "nodes that the program itself sent (PMPI: point-to-point and one-sided), "
                   "`h_col`/`f_col` MPI collective calls (whose messages PMPI cannot see), "
                   "`pkts`/`kbytes` what the nodes' network interfaces sent (the kernel's "
                   "view, the empty segment subtracted; TCP segments after offload, not wire "
                   "frames).\n" % (" ".join(cmd[1:]).replace(outdir + "/", ""), time.time() - t0,
                                    "virtual cluster" if vc else "one host (no kernel view)"))
        out.append("```\n%s\n```\n" % (so if rc == 0 else "failed (exit %d): %s" % (rc, se)))
        if vc:
            subprocess.run([os.path.join(os.path.dirname(bench), "vcluster"), "down"],
                           capture_output=True)
    # The model's inputs: the tour's own ping-pong and 2 x 2 collectives (on
    # the virtual cluster when it ran there) and, in the full tour, quick
    # runs of its own (ping-pong, 1 x 2 and 2 x 1 on this host, 2 x 1 on
    # the virtual cluster).
    mdir = os.path.join(outdir, "model")
    # A fresh directory each tour: --fill must not take an earlier tour's
    # inputs. The tour's ping-pong ran its inter-node row on the virtual
    # cluster: it stands for the local one only in the quick tour, which
    # predicts no local layout.
    shutil.rmtree(mdir, ignore_errors=True)
    os.makedirs(mdir, exist_ok=True)
    copies = [("pingpong.csv", "pingpong-vc.csv"), ("coll.csv", "coll-2x2-vc.csv")]
    if quick:
        copies.append(("pingpong.csv", "pingpong.csv"))
    for src, dst in copies:
        if vc and os.path.exists(os.path.join(outdir, src)):
            with open(os.path.join(outdir, src)) as f, open(os.path.join(mdir, dst), "w") as g:
                g.write(f.read())
    cmd = [bench, "model", "--dir", mdir, "--csv", os.path.join(outdir, "model.csv")]
    if not vc:
        cmd[2:2] = ["--measure"]
    elif not quick:
        # The inputs the tour has not run: quick 1 x 2 and 2 x 1 on this
        # host, and 2 x 1 on the virtual cluster (one core per process).
        cmd[2:2] = ["--fill", "--vcluster"]
    t0 = time.time()
    rc, so, se = run_text(cmd)
    out.append("### The cost model\n")
    out.append("`simple-bench %s` (%.0f s): parameters fitted from ping-pong and collective "
               "runs (%s), each measured time against the model's prediction (`miss`: more "
               "than 30%% off), then the projected ratio flat MPI / hybrid for large "
               "clusters.\n" % (" ".join(cmd[1:]).replace(outdir + "/", ""), time.time() - t0,
                                 "the tour's own 2 x 2 runs on the virtual cluster%s" % (
                                     "" if quick else ", quick 1 x 2 and 2 x 1 runs on one host "
                                     "and a quick 2 x 1 run on the virtual cluster")
                                 if vc else "quick 1 x 2 and 2 x 1 runs on one host"))
    out.append("```\n%s\n```\n" % (so if rc == 0 else "failed (exit %d): %s" % (rc, se)))
    out.append("Where the model misses: on this 2-core host the per-message costs are "
               "sub-microsecond on one host, so the software overheads that the formulas "
               "leave out (Open MPI's collective framework, simple's node barriers and "
               "wake-ups) are of the same size as what they keep; on the virtual cluster, "
               "2 x 2 runs two threads (or ranks) and the kernel's TCP work on each node's "
               "one core, where the model assumes a core per thread. The 2 x 1 run on the "
               "virtual cluster, a core per process, is the check that matches the "
               "projections' assumptions. `docs/model.md` lists the misses and their causes.\n")
    return "\n".join(out)


def scaling_section(outdir):
    """The many-core run of scripts/scaling.sh, when present."""
    d = os.path.join(outdir, "scaling")
    meta = os.path.join(d, "meta.txt")
    if not os.path.exists(meta):
        return None
    with open(meta) as f:
        m = f.read().strip()
    out = ["## Scaling run (scripts/scaling.sh)\n", "```\n%s\n```\n" % m]
    for name in ("coll", "sort", "fft", "matmul", "as", "traffic"):
        p = os.path.join(d, name + ".txt")
        if os.path.exists(p):
            with open(p) as f:
                out.append("### %s\n\n```\n%s\n```\n" % (name, f.read().strip()[-6000:]))
    return "\n".join(out)


def speedup_sweep(bench, outdir):
    """Paper 000's figures: speedup and efficiency against processors for
    the applications, each on 1, 2, 4 (matmul 1, 4, 9) processors of one
    node of this host, small sizes; speedup over the same code on one
    processor (sort: over its one-thread radix sort, matmul: over serial
    dgemm, queens: T1/Tp of the library, fft: simple's time on one thread)."""
    runs = [("sort", ["--quick", "--rounds", "1"], [1, 2, 4], "speedup", "n"),
            ("queens", ["--quick", "--rounds", "1", "--n", "14"], [1, 2, 4], "speedup", "n"),
            ("fft", ["--quick", "--rounds", "1", "--max-n", "512"], [1, 2, 4], None, "n"),
            ("matmul", ["--quick", "--rounds", "1", "--max-n", "256"], [1, 4, 9],
             "speedup_over_dgemm", "n")]
    series, table = {}, []
    for app, args, ps, col, key in runs:
        if not suite_known(bench, app):
            continue
        base = None
        for p_ in ps:
            path = os.path.join(outdir, "speedup-%s-%d.csv" % (app, p_))
            cmd = [bench, app, "-N", "1", "-t", str(p_), "--csv", path] + args
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(path):
                print("report: %s -t %d failed (exit %d)" % (app, p_, r.returncode),
                      file=sys.stderr)
                continue
            with open(path) as f:
                rows = list(csv.DictReader(f))
            rows = [x for x in rows if x.get("output", "natural") == "natural"]
            if not rows:
                continue
            row = rows[-1]  # the largest size of the run
            if col:
                sp = to_float(row.get(col))
            else:
                t = to_float(row.get("simple_us"))
                base = t if p_ == 1 else base
                sp = base / t if base and t else None
            if sp:
                series.setdefault(app, []).append((p_, sp, sp / p_))
                table.append((app, row.get(key), p_, sp, sp / p_))
    series = {a: v for a, v in series.items() if len(v) >= 3}
    if not series:
        return None
    dat = os.path.join(outdir, "speedup.dat")
    with open(dat, "w") as f:
        for a, pts in series.items():
            for p_ in pts:
                f.write("%d %g %g\n" % p_)
            f.write("\n\n")
    sp_plots = ["x with lines lc rgb 'black' dt 2 lw 1 title 'ideal'"]
    ef_plots = ["1 with lines lc rgb 'black' dt 2 lw 1 title 'ideal'"]
    for i, a in enumerate(series):
        c = PALETTE[i]
        sp_plots.append("'%s' index %d using 1:2 with linespoints lc rgb '%s' pt 7 title '%s'"
                        % (dat, i, c, a))
        ef_plots.append("'%s' index %d using 1:3 with linespoints lc rgb '%s' pt 7 title '%s'"
                        % (dat, i, c, a))
    png = gnuplot(outdir, "speedup.png", [
        "set multiplot layout 1,2 title \"%s\" noenhanced" % gp_title(
            "paper 000: speedup and parallel efficiency against processors (threads of one "
            "node of this 2-core host: beyond 2 the threads share cores)"), "set grid", "set key top left noenhanced",
        "set xlabel 'processors'", "set xrange [0.8:*]", "set ylabel 'speedup'",
        "plot " + ", ".join(sp_plots), "set ylabel 'efficiency (speedup / processors)'",
        "set yrange [0:1.3]", "plot " + ", ".join(ef_plots), "unset multiplot"])
    lines = ["## Speedup and efficiency\n",
             "Paper 000's figures: each application on 1, 2 and 4 threads of one node (matmul "
             "on 1, 4 and 9: square grids), small sizes (`--quick`, one round), the largest "
             "size of each run. Speedup: sort over its one-thread radix sort, n-queens T1/Tp of "
             "the library, FFT over simple's own one-thread transform, matmul over serial "
             "dgemm. Ran on: one host (2 cores: beyond 2 processors the threads share cores, "
             "so the efficiency there measures the sharing, not the code; other jobs on the "
             "machine take cores too, and one round gives no median).\n",
             "| application | size | processors | speedup | efficiency |",
             "| --- | --- | --- | --- | --- |"]
    lines += ["| %s | %s | %d | %.2f | %.2f |" % t for t in table]
    lines.append("")
    if png:
        lines.append("![speedup and efficiency](speedup.png)\n")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build, quick = sys.argv[1], "--quick" in sys.argv[2:]
    bench = os.path.join(build, "bin", "simple-bench")
    outdir = os.path.join(build, "report")
    os.makedirs(outdir, exist_ok=True)
    vc = can_vcluster()
    if vc:
        # The virtual cluster is one per machine: hold its lock for the
        # whole tour (every suite's --vcluster run), released at exit.
        lock = open("/tmp/simple-vcluster.lock", "a")
        print("report: waiting for the virtual cluster's lock", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    where = ("the virtual cluster, 2 nodes x 2 threads, for the suites with nodes; one host "
             "for node, queens, globalsum and the ping-pong's intra-node rows" if vc
             else "this machine, local processes (no virtual cluster: needs root and namespaces)")
    print("report: %s run on %s; writing %s" % ("quick" if quick else "full", where, outdir))
    sections, summary, t_start = [], [], time.time()
    only = None
    if "--only" in sys.argv[2:]:
        k = sys.argv.index("--only")
        only = sys.argv[k + 1].split(",") if k + 1 < len(sys.argv) else []
    wanted = lambda s: not only or s["name"] in only or s.get("id") in only
    todo = [s for s in SUITES if suite_known(bench, s["name"]) and wanted(s)]
    skipped = [s.get("id", s["name"]) for s in SUITES if s not in todo and wanted(s)]
    for i, s in enumerate(todo):
        sid = s.get("id", s["name"])
        csv_path = os.path.join(outdir, s.get("reuse", sid) + ".csv")
        cmd = [bench, s["name"], "--csv", csv_path] + s.get("args", [])
        if quick:
            cmd.append("--quick")
        cmd += s.get("quick_args" if quick else "full_args", [])
        if s["nodes"]:
            cmd += (["--vcluster"] + s.get("vc_layout", ["-N", "2", "-t", "2"]) if vc
                    else s.get("local", ["-N", "1", "-t", "2"]))
        elif s["name"] == "pingpong" and vc:
            cmd.append("--vcluster")
        if "reuse" in s:  # another view of a suite that already ran
            print("report: [%d/%d] %s: the table of %s" % (i + 1, len(todo), sid, s["reuse"]),
                  flush=True)
            r = subprocess.CompletedProcess(cmd, 0, "(the run of %s above)" % s["reuse"], "")
            took = 0.0
        else:
            print("report: [%d/%d] %s: %s" % (i + 1, len(todo), sid, " ".join(cmd[1:])),
                  flush=True)
            t0 = time.time()
            r = subprocess.run(cmd, capture_output=True, text=True)
            took = time.time() - t0
        if r.returncode != 0 or not os.path.exists(csv_path):
            print("report: %s failed (exit %d):\n%s" % (sid, r.returncode, r.stderr[-2000:]),
                  file=sys.stderr)
            sections.append("## %s\n\n%s\n\nFailed (exit %d); see the log below.\n\n```\n%s\n```\n"
                            % (sid, s["title"], r.returncode, r.stderr[-2000:]))
            continue
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        cols = list(rows[0].keys()) if rows else []
        s["xcol"] = s["x"] if s["x"] in cols else (cols[1] if len(cols) > 1 else None)
        s["ourscol"] = pick(cols, s["ours"])
        s["anchorcol"] = pick(cols, s["anchor"], avoid=(s["ourscol"],))
        png = plot(outdir, s, rows, cols)
        extra = []
        if s["name"] == "pingpong":
            extra.append(pingpong_bandwidth(outdir, rows))
        probe_table = None
        if s["name"] == "as":
            extra.append(as_per_word(outdir, rows))
            probe_table, probe_png = as_probe(outdir, rows)
            extra.append(probe_png)
        if s["nodes"] and vc:
            ran = "virtual cluster, %s" % " ".join(s.get("vc_layout", ["-N", "2", "-t", "2"]))
        elif s["nodes"]:
            ran = "one host, local processes, %s" % " ".join(s.get("local", ["-N", "1", "-t", "2"]))
        elif s["name"] == "pingpong" and vc:
            ran = "intra: one host; inter: virtual cluster"
        else:
            ran = "one host"
        base = s.get("reuse", sid)
        text = ["## %s\n" % sid, s["title"] + ".\n",
                "`simple-bench %s %s` (%.0f s). Raw table: [%s.csv](%s.csv). Output:\n"
                % (s["name"], " ".join(cmd[2:]).replace(csv_path, base + ".csv"), took, base,
                   base),
                "```\n" + r.stdout.strip() + "\n```\n"]
        text.insert(2, "Ran on: %s.\n" % ran)
        if png:
            text.append("![%s](%s)\n" % (s["title"], png))
        elif s["anchor"]:
            text.append("(No plot: fewer than three points per series; the table says it all.)\n")
        for e in extra:
            if e:
                text.append("![%s](%s)\n" % (e, e))
        if probe_table:
            text.append("The probe's g and L per level and side (least squares over h >= p):\n\n"
                        + probe_table)
        if s["name"] == "pingpong":
            text.append("`intra-buf` hands a buffer over without copying it (zero-copy); it is "
                        "not compared with MPI's copying send in the summary.\n")
        sections.append("\n".join(text))
        for row in rows if s["anchor"] else []:  # no anchor (bsp): no summary rows
            if s["name"] == "pingpong" and row.get("row") in ("intra-buf", "floor", "probe1",
                                                               "probe2"):
                continue  # zero-copy, or no anchor: not like with like
            o, a = to_float(row.get(s["ourscol"])), to_float(row.get(s["anchorcol"]))
            label = " ".join(str(row.get(c, "")) for c in cols[1:3])
            ratio = to_float(row.get("ratio"))
            if ratio is None and o and a:
                ratio = a / o
            row_ran = ran
            if s["name"] == "pingpong":
                row_ran = ("virtual cluster" if vc else "one host") if row.get("row") == "inter" \
                    else "one host"
            if s["name"] == "queens":
                procs = int(to_float(row.get("nodes")) or 1) * int(to_float(row.get("threads")) or 1)
                label = "n=%s speedup over the sequential solver on %d processors" % (
                    row.get("n"), procs)
            summary.append((sid, label, o, s["ourscol"], a, s["anchorcol"], ratio, row_ran))
    if not only or "globalsum" in only:
        print("report: globalsum: simple-bench node -t 1, 2, 4 (paper 001 Fig. 1)", flush=True)
        sec, rows = global_sum_sweep(bench, outdir, [1, 2, 4])
        if sec:
            sections.append(sec)
            summary += rows
    if (not only or "speedup" in only) and not quick:
        print("report: speedup: the applications on 1, 2, 4 processors (paper 000)", flush=True)
        sec = speedup_sweep(bench, outdir)
        if sec:
            sections.append(sec)
    if not only or "apps" in only:
        print("report: apps: paper 003's applications, speedup and the node cache", flush=True)
        import report_apps  # scripts/report_apps.py: the four applications' section
        sec, rows = report_apps.section(bench, outdir, vc, quick, sys.modules[__name__])
        sections.append(sec)
        summary += rows
    if not only or "scale" in only:
        print("report: scale: traffic and memory counted, the cost model", flush=True)
        sections.append(scale_section(bench, outdir, vc, quick))
    sc = scaling_section(outdir)
    if sc:
        sections.append(sc)
    total = time.time() - t_start
    lines = ["# simple: the papers' experiments\n",
             "Run on %s, %s mode, %.0f s in all, %s.\n" % (where, "quick" if quick else "full",
                                                          total, time.strftime("%Y-%m-%d %H:%M")),
             "Every suite runs simple and its anchor in one invocation, interleaved; medians. "
             "A ratio above 1 means simple is faster.\n"]
    if skipped:
        lines.append("Not in this build: %s.\n" % ", ".join(skipped))
    lines.append("## Summary\n\n| suite | row | ours | anchor | ratio | ran on |\n"
                 "| --- | --- | --- | --- | --- | --- |")
    fmt = lambda v, c: "-" if v is None else "%.4g %s" % (v, (c or "").rsplit("_", 1)[-1])
    for name, label, o, oc, a, ac, ratio, ran in summary:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            name, label, fmt(o, oc), fmt(a, ac), "-" if ratio is None else "%.2f" % ratio, ran))
    lines.append("")
    lines += sections
    with open(os.path.join(outdir, "index.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\nsummary (ours, anchor, ratio anchor/ours; above 1: simple is faster)")
    print("%-10s %-28s %14s %14s %8s" % ("suite", "row", "ours", "anchor", "ratio"))
    for name, label, o, oc, a, ac, ratio, ran in summary:
        print("%-10s %-28s %14s %14s %8s" % (name, label[:28], fmt(o, oc), fmt(a, ac),
                                           "-" if ratio is None else "%.2f" % ratio))
    if vc:
        subprocess.run([os.path.join(build, "bin", "vcluster"), "down"], capture_output=True)
    print("\nreport: %s (%.0f s)" % (os.path.join(outdir, "index.md"), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
