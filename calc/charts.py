"""Charts as inline SVG, drawn the same way at build time and in the page.

The markup uses no inline style (the pages' Content-Security-Policy
forbids it): each part carries a class, ``part-1``, ``part-2``…, that the
stylesheet colours for light, dark and print. Text is escaped (``html.escape``:
``xml.sax.saxutils`` would import ``urllib.request`` and the e-mail package into
the page's start).
"""

from __future__ import annotations

from fractions import Fraction
from html import escape


def stacked_bar(title: str, parts: list[tuple[str, Fraction]]) -> str:
    """One horizontal bar split in proportion to ``parts`` (label, size), with ``title`` as its name.

    Parts of size 0 are left out; with nothing to show the bar is empty.

    >>> print(stacked_bar("Memory", [("weights", Fraction(1)), ("gradients", Fraction(3))]))
    <svg class="bar" role="img" aria-label="Memory" viewBox="0 0 100 8" preserveAspectRatio="none" \
focusable="false"><rect class="part-1" x="0.000" y="0" width="25.000" height="8"><title>weights</title></rect>\
<rect class="part-2" x="25.000" y="0" width="75.000" height="8"><title>gradients</title></rect></svg>
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
        f'<svg class="bar" role="img" aria-label="{escape(title)}" viewBox="0 0 100 8" '
        f'preserveAspectRatio="none" focusable="false">{"".join(rects)}</svg>'
    )


def _coordinate(value: Fraction) -> str:
    # A thousandth of the bar is far below a pixel: no drawing needs more.
    return f"{float(value):.3f}"
