"""The README links every page under docs/, and every relative link in the README,
CONTRIBUTING.md and docs/ points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
# [text](target) and [text](target#anchor); targets with a scheme (https:, mailto:) are not files.
LINK = re.compile(r"\]\(([^)#\s]*)(?:#[^)\s]*)?\)")


def relative_links(page: Path) -> list[Path]:
    targets = LINK.findall(page.read_text(encoding="utf-8"))
    return [(page.parent / t).resolve() for t in targets if t and not re.match(r"[a-z]+:", t)]


def test_the_readme_links_every_docs_page():
    linked = set(relative_links(ROOT / "README.md"))
    assert [p.name for p in DOCS if p.resolve() not in linked] == []


@pytest.mark.parametrize(
    "page", [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS], ids=lambda p: p.name
)
def test_every_relative_link_points_at_a_file(page):
    assert [str(t) for t in relative_links(page) if not t.exists()] == []
