"""Charts as inline SVG, drawn the same way at build time and in the page.

The markup uses no inline style (the pages' Content-Security-Policy
forbids it): each part carries a class (a bar's ``part-1``, ``part-2``…, a
line chart's ``series-1``…, ``limit``, ``mark``) that the stylesheet colours
for light, dark and print. Text is escaped (``html.escape``:
``xml.sax.saxutils`` would import ``urllib.request`` and the e-mail package into
the page's start).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from html import escape

# The page parses each new chart on its own, as an SVG document: the namespace makes it one.
_SVG = "http://www.w3.org/2000/svg"


def stacked_bar(title: str, parts: list[tuple[str, Fraction]]) -> str:
    """One horizontal bar split in proportion to ``parts`` (label, size), with ``title`` as its name.

    Parts of size 0 are left out; with nothing to show the bar is empty.

    >>> print(stacked_bar("Memory", [("weights", Fraction(1)), ("gradients", Fraction(3))]))
    <svg xmlns="http://www.w3.org/2000/svg" class="bar" role="img" aria-label="Memory" viewBox="0 0 100 8" \
preserveAspectRatio="none" focusable="false"><rect class="part-1" x="0.000" y="0" width="25.000" height="8">\
<title>weights</title></rect><rect class="part-2" x="25.000" y="0" width="75.000" height="8"><title>gradients</title>\
</rect></svg>
    """
    total = sum(size for _, size in parts)
    rects = []
    start = Fraction(0)
    for index, (label, size) in enumerate(parts, start=1):
        if size <= 0:
            continue
        width = 100 * size / total
        rects.append(
            f'<rect class="part-{index}" x="{_coordinate(start)}" y="0" width="{_coordinate(width)}" height="8">'
            f"<title>{escape(label, quote=False)}</title></rect>"
        )
        start += width
    return (
        f'<svg xmlns="{_SVG}" class="bar" role="img" aria-label="{escape(title)}" viewBox="0 0 100 8" '
        f'preserveAspectRatio="none" focusable="false">{"".join(rects)}</svg>'
    )


def _coordinate(value: Fraction | float) -> str:
    # A thousandth of the bar is far below a pixel: no drawing needs more.
    return f"{float(value):.3f}"


# The line chart's frame, in the SVG's own units. The stylesheet scales the
# whole drawing to the page's width; text is sized for a chart about 30 rem wide.
_WIDTH = 480
_LEFT = 56  # room for the value axis' labels, unless one is longer
_CHARACTER = 7  # about a character's width at the stylesheet's text size
_RIGHT = 14
_PANEL = 112  # each panel's plotting height
_TITLE = 24  # a panel's title above its plot
_GAP = 18  # between one panel's plot and the next one's title
_BOTTOM = 44  # the shared axis: its labels, then its title


@dataclass(frozen=True)
class Line:
    """One series: its name, its (x, y) points in data units, and its place among the chart's series.

    The place picks its colour (``series-N``); a ``limit`` is drawn dashed instead.
    """

    name: str
    points: tuple[tuple[Fraction, Fraction], ...]
    series: int = 1
    limit: bool = False


@dataclass(frozen=True)
class Panel:
    """A plot of its own value axis: a title (what y is, in which unit), the ticks (value, label), the lines.

    The last tick is the top of the axis; the first is its bottom.
    """

    title: str
    ticks: tuple[tuple[Fraction, str], ...]
    lines: tuple[Line, ...]


def chart_height(panels: int) -> int:
    """The drawing's height for ``panels`` stacked plots (the stylesheet reserves it before it is drawn).

    >>> chart_height(2)
    340
    """
    return panels * (_TITLE + _PANEL) + (panels - 1) * _GAP + _BOTTOM + 6


def line_chart(
    title: str,
    x_title: str,
    x_ticks: tuple[tuple[Fraction, str], ...],
    panels: tuple[Panel, ...],
    mark: tuple[Fraction, str] | None = None,
) -> str:
    """Panels stacked over one shared x axis, each with its own value axis; ``title`` is the chart's name.

    ``x_ticks`` are (value, label) along the shared axis, the first and last
    its ends. ``mark`` (x, label) draws a vertical rule across every panel
    with a dot where each line meets it. A line that rises above a ``limit``
    of its panel gets a ring where it crosses.

    >>> one = Panel("Memory", ((Fraction(0), "0"), (Fraction(4), "4")),
    ...             (Line("used", ((Fraction(1), Fraction(1)), (Fraction(4), Fraction(4)))),
    ...              Line("budget", ((Fraction(1), Fraction(2)), (Fraction(4), Fraction(2))), 2, limit=True)))
    >>> svg = line_chart("Use", "Steps", ((Fraction(1), "1"), (Fraction(4), "4")), (one,))
    >>> svg.count("<polyline"), svg.count("<circle")
    (2, 1)
    """
    height = chart_height(len(panels))
    x_low, x_high = x_ticks[0][0], x_ticks[-1][0]
    left = max(_LEFT, 10 + _CHARACTER * max(len(label) for panel in panels for _, label in panel.ticks))
    right = _WIDTH - _RIGHT

    # Positions in floats: exact fractions of a pixel cost an edit more than they show.
    x_start, x_scale = float(x_low), (right - left) / float(x_high - x_low)

    def x_at(x: Fraction) -> float:
        return left + x_scale * (float(x) - x_start)

    parts = []
    top = Fraction(0)
    plots = []
    for panel in panels:
        plot_top = top + _TITLE
        bottom = plot_top + _PANEL
        low, high = panel.ticks[0][0], panel.ticks[-1][0]

        def y_at(y: Fraction, bottom=bottom, y_start=float(low), y_scale=_PANEL / float(high - low)) -> float:
            return bottom - y_scale * (float(y) - y_start)

        plots.append((panel, y_at))
        parts.append(f'<text class="axis-title" x="8" y="{_coordinate(plot_top - 9)}">{_text(panel.title)}</text>')
        for value, label in panel.ticks:
            y = _coordinate(y_at(value))
            parts.append(f'<line class="grid" x1="{left}" y1="{y}" x2="{right}" y2="{y}"/>')
            parts.append(
                f'<text class="tick" x="{left - 6}" y="{y}" text-anchor="end" dy="0.35em">{_text(label)}</text>'
            )
        for line in panel.lines:
            points = " ".join(f"{_coordinate(x_at(x))},{_coordinate(y_at(y))}" for x, y in line.points)
            kind = "limit" if line.limit else f"series-{line.series}"
            parts.append(f'<polyline class="{kind}" points="{points}"><title>{_text(line.name)}</title></polyline>')
        for limit in (line for line in panel.lines if line.limit):
            level = limit.points[0][1]
            for line in (line for line in panel.lines if not line.limit):
                crossing = _crossing(line.points, level)
                if crossing is not None:
                    cx, cy = _coordinate(x_at(crossing)), _coordinate(y_at(level))
                    parts.append(f'<circle class="crossing" cx="{cx}" cy="{cy}" r="4"/>')
        top = bottom + _GAP

    axis = top - _GAP
    for value, label in x_ticks:
        x = _coordinate(x_at(value))
        parts.append(f'<line class="axis" x1="{x}" y1="{_coordinate(axis)}" x2="{x}" y2="{_coordinate(axis + 4)}"/>')
        parts.append(
            f'<text class="tick" x="{x}" y="{_coordinate(axis + 17)}" text-anchor="middle">{_text(label)}</text>'
        )
    parts.append(
        f'<text class="axis-title" x="{_coordinate((left + right) / 2)}" y="{_coordinate(axis + 37)}" '
        f'text-anchor="middle">{_text(x_title)}</text>'
    )
    if mark is not None:
        at, label = mark
        x = _coordinate(x_at(at))
        parts.append(f'<line class="mark" x1="{x}" y1="{_TITLE}" x2="{x}" y2="{_coordinate(axis)}"/>')
        # Inside the first plot, at its top, on the side with more room.
        anchor, shift = ("end", -5) if x_at(at) > (left + right) / 2 else ("start", 5)
        parts.append(
            f'<text class="mark-label" x="{_coordinate(x_at(at) + shift)}" y="{_TITLE + 12}" '
            f'text-anchor="{anchor}">{_text(label)}</text>'
        )
        for panel, y_at in plots:
            for line in panel.lines:
                y = _value_at(line.points, at)
                if not line.limit and y is not None:
                    parts.append(f'<circle class="series-{line.series}" cx="{x}" cy="{_coordinate(y_at(y))}" r="3.5"/>')
    return (
        f'<svg xmlns="{_SVG}" class="plot" role="img" aria-label="{escape(title)}" viewBox="0 0 {_WIDTH} {height}" '
        f'focusable="false">{"".join(parts)}</svg>'
    )


def _crossing(points: tuple[tuple[Fraction, Fraction], ...], level: Fraction) -> Fraction | None:
    """Where a line first rises from at or under ``level`` to over it, or ``None``.

    >>> _crossing(((Fraction(1), Fraction(1)), (Fraction(5), Fraction(9))), Fraction(3))
    Fraction(2, 1)
    """
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if y0 <= level < y1:
            return x0 + (x1 - x0) * (level - y0) / (y1 - y0)
    return None


def _value_at(points: tuple[tuple[Fraction, Fraction], ...], x: Fraction) -> Fraction | None:
    """The line's value at ``x``, between its points, or ``None`` outside them."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def nice_ticks(top: Fraction, most: int = 4) -> tuple[Fraction, ...]:
    """Ticks from 0 at a round step (1, 2 or 5 times a power of ten), at most ``most`` steps, the last ≥ ``top``.

    >>> [str(t) for t in nice_ticks(Fraction(64))]
    ['0', '20', '40', '60', '80']
    >>> [str(t) for t in nice_ticks(Fraction(128))]
    ['0', '50', '100', '150']
    >>> [str(t) for t in nice_ticks(Fraction(3, 10))]
    ['0', '1/10', '1/5', '3/10']
    """
    if top <= 0:
        return (Fraction(0), Fraction(1))
    # From a tenth of the largest power of ten under the top: the smallest step that may do.
    power = Fraction(1, 10)
    while power * 10 <= top:
        power *= 10
    while power > top:
        power /= 10
    power /= 10
    while True:
        for factor in (1, 2, 5):
            step = factor * power
            if top / step <= most:
                count = -(-top // step)  # ceiling
                return tuple(step * i for i in range(int(count) + 1))
        power *= 10


def _text(text: str) -> str:
    return escape(text, quote=False)
