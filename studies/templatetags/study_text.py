"""A small, safe text renderer for guidelines: escapes everything, then turns the few
markdown marks the paper's guidelines use (#, ##, -, **bold**, *italic*) into HTML."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

BOLD = re.compile(r"\*\*(.+?)\*\*")
ITALIC = re.compile(r"\*(.+?)\*")


def _inline(text: str) -> str:
    return ITALIC.sub(r"<em>\1</em>", BOLD.sub(r"<strong>\1</strong>", escape(text)))


@register.filter
def guidelines(text: str) -> SafeString:
    out: list[str] = []
    in_list = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- ") and not in_list:
            out.append("<ul>")
            in_list = True
        elif not line.startswith("- ") and in_list:
            out.append("</ul>")
            in_list = False
        if not line:
            continue
        if line.startswith("## "):
            out.append(f"<h3>{_inline(line[3:])}</h3>")
        elif line.startswith("# "):
            out.append(f"<h2>{_inline(line[2:])}</h2>")
        elif line.startswith("- "):
            out.append(f"<li>{_inline(line[2:])}</li>")
        else:
            out.append(f"<p>{_inline(line)}</p>")
    if in_list:
        out.append("</ul>")
    return mark_safe("\n".join(out))  # noqa: S308 - every piece was escaped above


def minutes_text(seconds: int) -> str:
    """Time left in words, rounded up to whole minutes: "1 minute", "42 minutes"."""
    minutes = max(0, -(-int(seconds) // 60))
    return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"


@register.filter
def minutes_left(seconds) -> str:
    return minutes_text(int(seconds or 0))
