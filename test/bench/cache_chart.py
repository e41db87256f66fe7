#!/usr/bin/env python3
"""SVG bar chart of a cache_bench.sh run, on a log scale.

Reads the output of test/bench/cache_bench.sh (its table: shape, config,
ms, vs_pg, ...) and writes to standard output an SVG chart with, per query
shape, one bar per gpusel configuration (the column cache on the GPU, the
column cache on the CPU path, gpusel reading the heap) showing how many
times faster than PostgreSQL with the same parallel workers it ran.  The
speed-ups span three orders of magnitude, so the axis is logarithmic.
Standard library only; the fonts and colours are chart.py's.

    python3 test/bench/cache_chart.py docs/runs/cache_bench_keys_2026-11-27.txt \\
        "NVIDIA H100, 20M rows, 8 workers, 2026-11-27" > docs/cache_benchmark.svg
"""
import math
import re
import sys
from xml.sax.saxutils import escape

from chart import CHAR_WIDTH, FONT, FONT_SIZE, MARGIN, ONE_X_COLOUR

# the configurations drawn, in order: (config in the run, legend, colour)
SERIES = (
    ("cache_gpu", "gpusel, column cache, GPU", "#2b6cb0"),
    ("cache_cpu", "gpusel, column cache, CPU path", "#9ab8d8"),
    ("gpusel_heap", "gpusel, reading the heap, GPU", "#a0aec0"),
)
ROW = re.compile(r"^(?P<shape>.+?)\s+(?P<config>pg_workers|gpusel_heap|cache_gpu|cache_cpu)"
                 r"\s+(?P<ms>[0-9.]+)\s+(?P<vs_pg>[0-9.]+)\s")

BAR_HEIGHT = 10
BAR_GAP = 2
SHAPE_GAP = 10
PLOT_WIDTH = 560
TITLE_HEIGHT = 64
AXIS_HEIGHT = 34
LEGEND_HEIGHT = 26


def parse_run(lines):
    """The shapes in the run's order, each with its {config: speed-up over PostgreSQL}."""
    shapes = []
    speedups = {}
    for line in lines:
        m = ROW.match(line)
        if not m:
            continue
        shape = m.group("shape").strip()
        if shape not in speedups:
            shapes.append(shape)
            speedups[shape] = {}
        speedups[shape][m.group("config")] = float(m.group("vs_pg"))
    if not shapes:
        raise SystemExit("cache_chart.py: no rows of cache_bench.sh found")
    return [(shape, speedups[shape]) for shape in shapes]


def chart(shapes, title):
    series = [s for s in SERIES if any(s[0] in v for _, v in shapes)]
    top_value = max([v for _, vals in shapes for v in vals.values()] + [10.0])
    decades = max(1, math.ceil(math.log10(top_value * 1.3)))
    label_width = max(len(shape) for shape, _ in shapes) * CHAR_WIDTH + 12
    plot_left = MARGIN + label_width
    shape_height = len(series) * (BAR_HEIGHT + BAR_GAP) + SHAPE_GAP
    plot_top = MARGIN + TITLE_HEIGHT
    axis_y = plot_top + len(shapes) * shape_height
    width = plot_left + PLOT_WIDTH + 70 + MARGIN
    height = axis_y + AXIS_HEIGHT + LEGEND_HEIGHT * len(series) + MARGIN

    def x_of(value):
        return plot_left + PLOT_WIDTH * math.log10(max(value, 1.0)) / decades

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="%s" font-size="%d">'
           % (width, height, width, height, FONT, FONT_SIZE),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>'
           % (MARGIN, MARGIN + 16, escape(title)),
           '<text x="%d" y="%d" fill="#444">times faster than PostgreSQL with the same '
           'parallel workers (log scale), per query shape</text>' % (MARGIN, MARGIN + 36)]
    for d in range(decades + 1):
        x = x_of(10 ** d)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e2e2"/>'
                   % (x, plot_top - 4, x, axis_y))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%dx</text>'
                   % (x, axis_y + 16, 10 ** d))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>'
               % (plot_left, axis_y, plot_left + PLOT_WIDTH, axis_y))
    for i, (shape, values) in enumerate(shapes):
        top = plot_top + i * shape_height
        out.append('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>'
                   % (plot_left - 8, top + len(series) * (BAR_HEIGHT + BAR_GAP) / 2 + 4,
                      escape(shape)))
        for j, (config, name, colour) in enumerate(series):
            if config not in values:
                continue
            value = values[config]
            y = top + j * (BAR_HEIGHT + BAR_GAP)
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s">'
                       '<title>%s, %s: %.2fx</title></rect>'
                       % (plot_left, y, max(x_of(value) - plot_left, 1.0), BAR_HEIGHT, colour,
                          escape(shape), escape(name), value))
            out.append('<text x="%.1f" y="%d" font-size="10" fill="#333">%.1fx</text>'
                       % (max(x_of(value), plot_left + 1) + 3, y + BAR_HEIGHT - 1, value))
    out.append('<text x="%.1f" y="%d" font-size="10" fill="%s">1x = PostgreSQL</text>'
               % (plot_left + 4, plot_top - 8, ONE_X_COLOUR))
    for j, (_, name, colour) in enumerate(series):
        y = axis_y + AXIS_HEIGHT + j * LEGEND_HEIGHT
        out.append('<rect x="%d" y="%d" width="14" height="%d" fill="%s"/>'
                   % (plot_left, y, BAR_HEIGHT, colour))
        out.append('<text x="%d" y="%d">%s</text>' % (plot_left + 20, y + BAR_HEIGHT - 1, escape(name)))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: python3 test/bench/cache_chart.py <cache_bench.sh output> "
                         "<title, e.g. machine and date> > chart.svg\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        shapes = parse_run(f.read().splitlines())
    sys.stdout.write(chart(shapes, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
