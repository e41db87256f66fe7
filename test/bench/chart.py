#!/usr/bin/env python3
"""SVG bar chart of a groupagg_bench.sql result table.

Reads the result table of test/bench/groupagg_bench.sql as psql prints it
(aligned format: a header row, a row of dashes, the rows, "(N rows)") and
writes to standard output an SVG chart with, per query shape, one horizontal
bar for gpu_speedup and one for cpu_speedup, labelled by the 'what' column,
and a vertical line at 1x (PostgreSQL's own time).  Standard library only.

    python3 test/bench/chart.py docs/runs/groupagg_bench_h100_2026-11-26.txt \
        "NVIDIA H100, 10M rows, 2026-11-26" > docs/benchmark.svg

The input may be a whole psql log: the first table whose header has the
columns what, gpu_speedup and cpu_speedup is used.
"""

import math
import sys
from xml.sax.saxutils import escape

REQUIRED = ("what", "gpu_speedup", "cpu_speedup")

# layout, in SVG user units (pixels)
FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
FONT_SIZE = 12
CHAR_WIDTH = 6.6  # average advance of FONT_SIZE text, for sizing the label column
BAR_HEIGHT = 11
BAR_GAP = 2  # between a shape's two bars
SHAPE_GAP = 10  # between shapes
PLOT_WIDTH = 520
MARGIN = 16
TITLE_HEIGHT = 50
AXIS_HEIGHT = 34
LEGEND_HEIGHT = 26
GPU_COLOUR = "#2b6cb0"
CPU_COLOUR = "#9ab8d8"
ONE_X_COLOUR = "#c53030"


def parse_table(lines):
    """Returns the rows (dicts of column -> text) of the first aligned table
    whose header holds every REQUIRED column."""
    for i, line in enumerate(lines):
        if "|" not in line:
            continue
        header = [cell.strip() for cell in line.split("|")]
        if not all(name in header for name in REQUIRED):
            continue
        if i + 1 >= len(lines) or not set(lines[i + 1].strip()) <= set("-+"):
            continue
        rows = []
        for row_line in lines[i + 2:]:
            stripped = row_line.strip()
            if not stripped or (stripped.startswith("(") and "row" in stripped):
                break
            cells = [cell.strip() for cell in row_line.split("|")]
            if len(cells) != len(header):
                break
            rows.append(dict(zip(header, cells)))
        return rows
    raise SystemExit("chart.py: no table with columns %s found" % ", ".join(REQUIRED))


def number(text):
    """The cell as a float, or None for an empty (NULL) cell."""
    try:
        return float(text)
    except ValueError:
        return None


def nice_ceiling(value):
    """The axis end: 1, 2, 2.5 or 5 times a power of ten, at or above value."""
    if value <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def tick_step(axis_end):
    """A tick spacing giving five to ten ticks."""
    power = 10 ** math.floor(math.log10(axis_end))
    for step in (power / 5, power / 2, power, power * 2):
        if axis_end / step <= 10:
            return step
    return power * 2


def fmt(value):
    """A tick value without trailing zeros."""
    return ("%.2f" % value).rstrip("0").rstrip(".")


def chart(rows, title):
    shapes = []
    for row in rows:
        label = row["what"]
        if row.get("n"):
            label = "%s. %s" % (row["n"], label)
        shapes.append((label, number(row["gpu_speedup"]), number(row["cpu_speedup"])))
    values = [v for _, g, c in shapes for v in (g, c) if v is not None]
    axis_end = nice_ceiling(max(values + [1.0]) * 1.08)
    step = tick_step(axis_end)

    label_width = max(len(label) for label, _, _ in shapes) * CHAR_WIDTH + 12
    plot_left = MARGIN + label_width
    shape_height = 2 * BAR_HEIGHT + BAR_GAP + SHAPE_GAP
    plot_top = MARGIN + TITLE_HEIGHT
    plot_height = len(shapes) * shape_height
    width = plot_left + PLOT_WIDTH + 60 + MARGIN
    height = plot_top + plot_height + AXIS_HEIGHT + LEGEND_HEIGHT + MARGIN

    def x_of(value):
        return plot_left + PLOT_WIDTH * value / axis_end

    out = []
    out.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
               'viewBox="0 0 %d %d" font-family="%s" font-size="%d">'
               % (width, height, width, height, FONT, FONT_SIZE))
    out.append('<rect width="100%" height="100%" fill="white"/>')
    out.append('<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>'
               % (MARGIN, MARGIN + 16, escape(title)))
    out.append('<text x="%d" y="%d" fill="#444">gpusel speed-up over PostgreSQL '
               '(PostgreSQL time / gpusel time), per query shape</text>'
               % (MARGIN, MARGIN + 36))

    # grid and axis
    tick = 0.0
    axis_y = plot_top + plot_height
    while tick <= axis_end + 1e-9:
        x = x_of(tick)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e2e2"/>'
                   % (x, plot_top - 4, x, axis_y))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%sx</text>'
                   % (x, axis_y + 16, fmt(tick)))
        tick += step
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>'
               % (plot_left, axis_y, plot_left + PLOT_WIDTH, axis_y))

    # bars
    for i, (label, gpu, cpu) in enumerate(shapes):
        top = plot_top + i * shape_height
        out.append('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>'
                   % (plot_left - 8, top + BAR_HEIGHT + BAR_GAP / 2 + 4, escape(label)))
        for j, (value, colour, name) in enumerate(((gpu, GPU_COLOUR, "GPU path"),
                                                   (cpu, CPU_COLOUR, "CPU path"))):
            if value is None:
                continue
            y = top + j * (BAR_HEIGHT + BAR_GAP)
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s">'
                       '<title>%s, %s: %sx</title></rect>'
                       % (plot_left, y, x_of(value) - plot_left, BAR_HEIGHT, colour,
                          escape(label), name, "%.2f" % value))
            out.append('<text x="%.1f" y="%d" font-size="10" fill="#333">%.2fx</text>'
                       % (x_of(value) + 3, y + BAR_HEIGHT - 2, value))

    # 1x: PostgreSQL
    x1 = x_of(1.0)
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" '
               'stroke-dasharray="4 3"/>' % (x1, plot_top - 8, x1, axis_y, ONE_X_COLOUR))
    out.append('<text x="%.1f" y="%d" font-size="10" fill="%s">1x = PostgreSQL</text>'
               % (x1 + 4, plot_top - 8, ONE_X_COLOUR))

    # legend
    legend_y = axis_y + AXIS_HEIGHT
    out.append('<rect x="%d" y="%d" width="14" height="%d" fill="%s"/>'
               % (plot_left, legend_y, BAR_HEIGHT, GPU_COLOUR))
    out.append('<text x="%d" y="%d">gpusel, GPU path (gpu_speedup)</text>'
               % (plot_left + 20, legend_y + BAR_HEIGHT - 1))
    out.append('<rect x="%d" y="%d" width="14" height="%d" fill="%s"/>'
               % (plot_left + 260, legend_y, BAR_HEIGHT, CPU_COLOUR))
    out.append('<text x="%d" y="%d">gpusel, CPU path (cpu_speedup)</text>'
               % (plot_left + 280, legend_y + BAR_HEIGHT - 1))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: python3 test/bench/chart.py <groupagg_bench output> "
                         "<title, e.g. machine and date> > chart.svg\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        rows = parse_table(f.read().splitlines())
    if not rows:
        raise SystemExit("chart.py: the table has no rows")
    sys.stdout.write(chart(rows, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
