"""The paper-analyses page's figures as inline SVG, drawn from coordinates computed here (as
the sense map on the kinds page is): one small histogram per group, every panel of a figure
on the same axes, each bar with a ``<title>`` and each panel with a text alternative that
says what it shows. The numbers themselves stay in the tables beside the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 240, 96, 4  # px: one panel, and the gap left for the axis line


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True)
class Panel:
    title: str
    n: int
    bars: list[Bar]
    marker_x: float | None  # the median's place on the x axis
    description: str


@dataclass(frozen=True)
class Figure:
    key: str
    caption: str
    axis: str
    low: float
    high: float
    panels: list[Panel]
    unit: str = ""
    width: int = WIDTH
    height: int = HEIGHT


def _label(value: float) -> str:
    return f"{value:g}"


def _panel(
    title: str, counts: Sequence[int], edges: Sequence[float], median: float | None, top: float,
    unit: str,
) -> Panel:  # fmt: skip
    n = sum(counts)
    low, high = edges[0], edges[-1]
    scale = (WIDTH - 2 * PAD) / (high - low)
    bars = []
    for count, a, b in zip(counts, edges, edges[1:], strict=False):
        share = count / n if n else 0.0
        h = (HEIGHT - 2 * PAD) * share / top if top else 0.0
        bars.append(
            Bar(
                x=round(PAD + (a - low) * scale, 2),
                y=round(HEIGHT - PAD - h, 2),
                width=round(max((b - a) * scale - 1, 1), 2),
                height=round(h, 2),
                title=f"{_label(a)}-{_label(b)}: {count} {unit} ({share:.0%})",
            )
        )
    peak = max(range(len(counts)), key=lambda i: counts[i]) if n else None
    described = f"{title}: {n} {unit}"
    if median is not None:
        described += f", median {median:.2f}"
    if peak is not None:
        described += (
            f"; most in {_label(edges[peak])}-{_label(edges[peak + 1])} ({counts[peak] / n:.0%})"
        )
    marker = None if median is None else round(PAD + (median - low) * scale, 2)
    return Panel(title, n, bars, marker, described)


def histogram_figure(
    key: str,
    caption: str,
    axis: str,
    groups: Sequence[tuple[str, Sequence[int], float | None]],
    edges: Sequence[float],
    unit: str,
) -> Figure:
    """Panels of ``(title, counts per bin, median)`` over the same ``edges``; bar heights are
    the share of the group's values, on one scale for all panels."""
    shares = [c / sum(counts) for _, counts, _ in groups if sum(counts) for c in counts]
    top = max(shares, default=0.0)
    panels = [_panel(t, counts, edges, median, top, unit) for t, counts, median in groups]
    return Figure(key, caption, axis, edges[0], edges[-1], panels, unit)
