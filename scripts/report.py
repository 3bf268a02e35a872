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
import math
import os
import subprocess
import sys
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
         group="op", x="bytes", ours="simple_us", anchor="anchor_us",
         full_args=["--rounds", "3"]),
    dict(name="transpose", title="paper 002 Fig. 6: matrix transpose, hybrid against flat MPI "
         "(MPI_Alltoall)", nodes=True, group=None, x="n", ours="simple_us", anchor="mpi_us",
         full_args=["--max-n", "4096", "--rounds", "3"]),
    dict(name="pingpong", title="paper 003 Fig. 3: ping-pong latency against message size, "
         "simple against raw MPI", nodes=False, group="row", x="bytes", ours="simple_us",
         anchor="mpi_us",
         full_args=["--rounds", "3"]),
    dict(name="rma", title="paper 004: one-sided puts/gets and supersteps, MPI windows "
         "(onesided) against two-sided messages", nodes=True, group="op", x="bytes",
         ours="onesided_us", anchor="twosided_us",
         full_args=["--rounds", "3"]),
    dict(id="coll-1thread", name="coll", title="paper 002 Fig. 6 (one thread per node): "
         "reduction and all-to-all, hybrid with 1 thread per node against flat MPI", nodes=True,
         group="op", x="bytes", ours="simple_us", anchor="anchor_us",
         args=["--only", "reduce,allreduce,alltoall"], vc_layout=["-N", "2", "-t", "1"],
         local=["-N", "2", "-t", "1"], full_args=["--rounds", "3", "--max-bytes", "1M"]),
    dict(name="sort", title="paper 000 radix sort, paper 004 RDXSORT: hybrid against flat MPI "
         "(the same algorithm, one rank per thread)", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us",
         full_args=["--max-n", str(1 << 24), "--rounds", "3"]),
    dict(id="sort-rdx", name="sort", title="paper 004 Sec. 5: RDXSORT (puts per digit on the "
         "one-sided layer) against the flat-MPI radix sort", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us", args=["--algo", "rdx"],
         full_args=["--max-n", str(1 << 22), "--rounds", "1"]),
    dict(id="sort-rdxopt", name="sort", title="paper 004 Sec. 5: RDXSORTOPT (staggered start "
         "digits) against the flat-MPI radix sort", nodes=True, group="algo", x="n",
         ours="simple_us", anchor="mpi_us", args=["--algo", "rdxopt"],
         full_args=["--max-n", str(1 << 22), "--rounds", "1"]),
    dict(name="fft", title="paper 000, paper 002 Sec. 3.3: 2D FFT, hybrid against FFTW-MPI "
         "(best of flat and threaded)", nodes=True, group="output", x="n", ours="simple_us",
         anchor="anchor_us",
         full_args=["--max-n", "2048", "--rounds", "3"]),
    dict(name="queens", title="paper 000: n-queens, parallel time against the classic "
         "sequential solver", nodes=False, group=None, x="n", ours="simple_p_s",
         anchor="classic_s",
         full_args=["--rounds", "1"]),
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
         full_args=["--max-h", str(1 << 16), "--rounds", "1"]),
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


def plot(outdir, s, rows, cols):
    """One log-log panel: our time (solid) and the anchor's (dashed) per group."""
    x, ours, anchor, group = s["xcol"], s["ourscol"], s["anchorcol"], s.get("group")
    if not (x and ours and anchor) or x not in cols:
        return None
    groups = {}
    for r in rows:
        g = r.get(group, "") if group else s["name"]
        xv, o, a = to_float(r.get(x)), to_float(r.get(ours)), to_float(r.get(anchor))
        if xv is None or xv <= 0 or o is None or a is None or o <= 0 or a <= 0:
            continue
        groups.setdefault(g, []).append((xv, o, a))
    if not groups:
        return None
    dat = os.path.join(outdir, s.get("id", s["name"]) + ".dat")
    with open(dat, "w") as f:
        for g, pts in groups.items():
            f.write("# %s\n" % g)
            for p in sorted(pts):
                f.write("%g %g %g\n" % p)
            f.write("\n\n")
    png = s.get("id", s["name"]) + ".png"
    gp = ["set terminal pngcairo size 1000,640" if has_pngcairo() else "set terminal png size 1000,640",
          "set output '%s'" % os.path.join(outdir, png),
          "set title \"%s\" noenhanced font ',10'" % gp_title(s["title"]),
          "set logscale xy", "set xlabel '%s' noenhanced" % x,
          "set ylabel 'time (%s)' noenhanced" % ours.rsplit("_", 1)[-1],
          "set key outside right noenhanced", "set grid"]
    plots = []
    for i, g in enumerate(groups):
        plots.append("'%s' index %d using 1:2 with linespoints lt %d dt 1 title '%s (simple)'"
                     % (dat, i, i + 1, g))
        plots.append("'%s' index %d using 1:3 with linespoints lt %d dt 2 title '%s (%s)'"
                     % (dat, i, i + 1, g, anchor.rsplit("_", 1)[0]))
    gp.append("plot " + ", ".join(plots))
    r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True, capture_output=True)
    if r.returncode != 0:
        print("report: gnuplot failed for %s: %s" % (s["name"], r.stderr.strip()), file=sys.stderr)
        return None
    return png


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
             "`simple-bench node -t P --quick` for P = %s; the 8-byte allreduce row.\n"
             % ", ".join(str(t) for t in counts),
             "| processors | simple (us) | MPI_Allreduce (us) | ratio |", "| --- | --- | --- | --- |"]
    lines += ["| %d | %.3f | %.3f | %.2f |" % (p_, o, a, a / o) for p_, o, a in pts]
    lines.append("")
    if r.returncode == 0:
        lines.append("![%s](%s)\n" % (title, png))
    rows = [("globalsum", "p=%d" % p_, o, "simple_us", a, "mpi_us", a / o) for p_, o, a in pts]
    return "\n".join(lines), rows


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build, quick = sys.argv[1], "--quick" in sys.argv[2:]
    bench = os.path.join(build, "bin", "simple-bench")
    outdir = os.path.join(build, "report")
    os.makedirs(outdir, exist_ok=True)
    vc = can_vcluster()
    where = ("the virtual cluster, 2 nodes x 2 threads" if vc
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
        base = s.get("reuse", sid)
        text = ["## %s\n" % sid, s["title"] + ".\n",
                "`simple-bench %s %s` (%.0f s). Raw table: [%s.csv](%s.csv). Output:\n"
                % (s["name"], " ".join(cmd[2:]).replace(csv_path, base + ".csv"), took, base,
                   base),
                "```\n" + r.stdout.strip() + "\n```\n"]
        if png:
            text.append("![%s](%s)\n" % (s["title"], png))
        sections.append("\n".join(text))
        for row in rows if s["anchor"] else []:  # no anchor (bsp): no summary rows
            o, a = to_float(row.get(s["ourscol"])), to_float(row.get(s["anchorcol"]))
            label = " ".join(str(row.get(c, "")) for c in cols[1:3])
            ratio = to_float(row.get("ratio"))
            if ratio is None and o and a:
                ratio = a / o
            summary.append((sid, label, o, s["ourscol"], a, s["anchorcol"], ratio))
    if not only or "globalsum" in only:
        print("report: globalsum: simple-bench node -t 1, 2, 4 (paper 001 Fig. 1)", flush=True)
        sec, rows = global_sum_sweep(bench, outdir, [1, 2, 4])
        if sec:
            sections.append(sec)
            summary += rows
    total = time.time() - t_start
    lines = ["# simple: the papers' experiments\n",
             "Run on %s, %s mode, %.0f s in all, %s.\n" % (where, "quick" if quick else "full",
                                                          total, time.strftime("%Y-%m-%d %H:%M")),
             "Every suite runs simple and its anchor in one invocation, interleaved; medians. "
             "A ratio above 1 means simple is faster.\n"]
    if skipped:
        lines.append("Not in this build: %s.\n" % ", ".join(skipped))
    lines.append("## Summary\n\n| suite | row | ours | anchor | ratio |\n| --- | --- | --- | --- | --- |")
    fmt = lambda v, c: "-" if v is None else "%.4g %s" % (v, (c or "").rsplit("_", 1)[-1])
    for name, label, o, oc, a, ac, ratio in summary:
        lines.append("| %s | %s | %s | %s | %s |" % (name, label, fmt(o, oc), fmt(a, ac),
                                                    "-" if ratio is None else "%.2f" % ratio))
    lines.append("")
    lines += sections
    with open(os.path.join(outdir, "index.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\nsummary (ours, anchor, ratio anchor/ours; above 1: simple is faster)")
    print("%-10s %-28s %14s %14s %8s" % ("suite", "row", "ours", "anchor", "ratio"))
    for name, label, o, oc, a, ac, ratio in summary:
        print("%-10s %-28s %14s %14s %8s" % (name, label[:28], fmt(o, oc), fmt(a, ac),
                                           "-" if ratio is None else "%.2f" % ratio))
    print("\nreport: %s (%.0f s)" % (os.path.join(outdir, "index.md"), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
