"""The report's section for paper 003's irregular applications (Figures 4-8):
Water, Groebner (on Lazard's system, the paper's input), Barnes-Hut and
block Cholesky (dense D1000, sparse BCSSTK15), each `simple-bench APP`
run once, plotted as speedup against processors, and the node-shared
cache's remote fetches and bytes per host against one cache per process
(Barnes-Hut's flat placement), as bars.

Called by scripts/report.py (section(bench, outdir, vc, quick, rp), rp
being report.py's module for its helpers); returns the section's markdown
and its summary rows."""

import csv
import os
import subprocess
import sys
import time

# app, the paper's figure, the options of a full and of a quick tour, and
# whether it runs on the virtual cluster when the other suites with nodes
# do (all four now: Cholesky's sparse factorization takes about 2.5 s on
# the virtual cluster 2 x 2 since finished blocks' names are pushed across
# nodes; docs/cholesky.md).
APPS = [
    ("water", "Figure 4: Water", [], ["--quick", "--rounds", "1"], True),
    ("groebner", "Figure 5: Groebner basis on Lazard's system", ["--lazard", "--rounds", "3"],
     ["--lazard", "--rounds", "1"], True),
    ("barnes", "Figure 6: Barnes-Hut", ["--rounds", "2"], ["--quick", "--rounds", "1"], True),
    ("cholesky", "Figures 7-8: block Cholesky (BCSSTK15, D1000)",
     ["--rounds", "3"], ["--quick", "--rounds", "1"], True),
]
LOCAL = ["-N", "1", "-t", "2"]


def _run(bench, outdir, app, args, layout):
    path = os.path.join(outdir, "apps-%s.csv" % app)
    cmd = [bench, app, "--csv", path] + args + layout
    print("report: apps: %s" % " ".join(cmd[1:]), flush=True)
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    took = time.time() - t0
    rows = []
    if r.returncode == 0 and os.path.exists(path):
        with open(path) as f:
            rows = list(csv.DictReader(f))
    else:
        print("report: apps: %s failed (exit %d):\n%s" % (app, r.returncode, r.stderr[-2000:]),
              file=sys.stderr)
    return cmd, r, took, rows


def _series(app, rows, rp):
    """{series name: [(processors, speedup)]} from one suite's table."""
    out = {}
    if app == "cholesky":
        for row in rows:
            p, sp = rp.to_float(row.get("p")), rp.to_float(row.get("speedup"))
            if p and sp:
                out["simple, " + row.get("matrix", "?")] = [(1, 1.0), (int(p), sp)]
        return out
    for row in rows:
        p, sp = rp.to_float(row.get("p")), rp.to_float(row.get("speedup"))
        if not p or sp is None:
            continue
        name = "flat MPI placement" if row.get("config", "").startswith("flat") else "simple"
        out.setdefault(name, []).append((int(p), sp))
    for v in out.values():
        v.sort()
    return out


def section(bench, outdir, vc, quick, rp):
    layout = ["--vcluster", "-N", "2", "-t", "2"] if vc else ["-N", "1", "-t", "2"]
    ran = "virtual cluster, -N 2 -t 2" if vc else "one host, -N 1 -t 2"
    lines = ["## Irregular applications (paper 003, Figures 4-8)\n",
             "Speedup against processors, T(1 thread) / T(p), medians over rounds (one round "
             "in the quick tour), each `simple-bench APP` one invocation; the flat MPI "
             "placement runs the same code with one process per processor (its own cache). "
             "Ran on: %s. The paper ran 1 to 24 workstations; this host has 2 cores, shared "
             "with other jobs, so the curves stop at 2 processors per host.\n" % ran]
    panels, summary, dat_idx = [], [], 0
    dat = os.path.join(outdir, "apps-speedup.dat")
    barnes_rows = None
    with open(dat, "w") as f:
        for app, fig, full, quick_args, on_vc in APPS:
            if not rp.suite_known(bench, app):
                lines.append("%s: not in this build.\n" % app)
                continue
            cmd, r, took, rows = _run(bench, outdir, app, quick_args if quick else full,
                                      layout if on_vc else LOCAL)
            app_ran = ran if on_vc else "one host, -N 1 -t 2"
            lines.append("### %s\n" % fig)
            lines.append("Ran on: %s.\n" % app_ran)
            lines.append("`simple-bench %s` (%.0f s). Raw table: [apps-%s.csv](apps-%s.csv).\n"
                         % (" ".join(cmd[1:]).replace(os.path.join(outdir, ""), ""), took, app,
                            app))
            lines.append("```\n" + (r.stdout.strip() or r.stderr.strip()[-2000:]) + "\n```\n")
            if not rows:
                continue
            if app == "barnes":
                barnes_rows = rows
            if app == "cholesky":
                for row in rows:
                    o, a = rp.to_float(row.get("simple_p_s")), rp.to_float(row.get("anchor_s"))
                    summary.append(("cholesky", "%s on %s processors against %s" % (
                        row.get("matrix"), row.get("p"), row.get("anchor")), o, "simple_p_s", a,
                        "anchor_s", a / o if o and a else None, app_ran))
            plots = []
            for name, pts in _series(app, rows, rp).items():
                for p, sp in pts:
                    f.write("%d %g\n" % (p, sp))
                f.write("\n\n")
                plots.append("'%s' index %d using 1:2 with linespoints lc rgb '%s' pt 7 "
                             "title '%s'" % (dat, dat_idx, rp.PALETTE[len(plots)], name))
                dat_idx += 1
            if plots:
                panels.append((fig, plots))
    if panels:
        gp = ["set multiplot layout 2,2 title \"%s\" noenhanced" % rp.gp_title(
            "paper 003 Figures 4-8: speedup against processors (%s)" % ran), "set grid",
              "set key top left noenhanced", "set xlabel 'processors'", "set ylabel 'speedup'",
              "set xrange [0.8:*]", "set yrange [0:*]"]
        for fig, plots in panels:
            gp.append("set title \"%s\" noenhanced" % rp.gp_title(fig))
            gp.append("plot x with lines lc rgb 'black' dt 2 title 'ideal', " + ", ".join(plots))
        gp.append("unset multiplot")
        png = rp.gnuplot(outdir, "apps-speedup.png", gp)
        if png:
            lines.append("![speedup of the four applications](%s)\n" % png)
    if barnes_rows:
        lines.append(_cache_bars(outdir, barnes_rows, rp, ran))
    return "\n".join(lines), summary


def _cache_bars(outdir, rows, rp, ran):
    """Barnes-Hut's remote fetches and bytes per host: the node-shared cache
    (simple's configurations) against one cache per process (flat)."""
    dat = os.path.join(outdir, "apps-cache.dat")
    pts = [(r.get("config", "?"), rp.to_float(r.get("fetches_per_host")) or 0,
            (rp.to_float(r.get("bytes_per_host")) or 0) / 1024.0) for r in rows
           if rp.to_float(r.get("p")) and rp.to_float(r.get("p")) > 1]
    if not pts:
        return ""
    with open(dat, "w") as f:
        for name, fe, kb in pts:
            f.write("\"%s\" %g %g\n" % (name, fe, kb))
    png = rp.gnuplot(outdir, "apps-cache.png", [
        "set multiplot layout 1,2 title \"%s\" noenhanced" % rp.gp_title(
            "paper 003 Barnes-Hut: remote fetches per host, node-shared cache (simple) "
            "against one cache per process (flat) (%s)" % ran),
        "set style data histograms", "set style fill solid 0.8 border -1",
        "set boxwidth 0.7", "set grid ytics", "set yrange [0:*]", "set xtics noenhanced",
        "set ylabel 'remote fetches per host'",
        "plot '%s' using 2:xtic(1) lc rgb '%s' notitle" % (dat, rp.PALETTE[0]),
        "set ylabel 'KiB fetched per host'",
        "plot '%s' using 3:xtic(1) lc rgb '%s' notitle" % (dat, rp.PALETTE[1]),
        "unset multiplot"])
    text = ["### The node-shared cache against one cache per process\n",
            "Barnes-Hut's tree cells read through the shared-object cache: remote fetches "
            "and bytes per host (counts, deterministic for a given run), simple's configurations "
            "(NODES x THREADS: one cache per node) against the flat placement's (one process "
            "and one cache per processor). Configurations with one processor are left out. "
            "On one host simple's node-shared cache has every cell at home and fetches none, "
            "while the flat placement's processes fetch from each other. Ran on: %s.\n" % ran,
            "| configuration | fetches per host | KiB per host |", "| --- | --- | --- |"]
    text += ["| %s | %d | %.0f |" % p for p in pts]
    text.append("")
    if png:
        text.append("![remote fetches per host](%s)\n" % png)
    return "\n".join(text)
