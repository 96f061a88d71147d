"""The paper-analyses page in real headless Chromium: the figures' SVG panels are drawn with
visible bars beside the paper's reading, and the page fits a phone's width."""

from __future__ import annotations

import pytest

from tests.conftest import screenshot
from tests.dashboards.test_browser import log_in


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1280, 390])
def test_the_figures_are_drawn_and_fit_the_page(live_server, page, researcher, dev_json, width):
    from pathlib import Path

    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.rawc import RawcData, load_rawc, rawc_import

    data = load_rawc(Path(__file__).resolve().parents[2] / "data" / "rawc")
    keep = {p.key for p in data.pairs[:120]}
    rawc_import(data=RawcData(data.pairs[:120], [j for j in data.judgments if j.key in keep]))
    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, live_server, next_url="/dashboards/papers/")
    page.wait_for_selector("#figure3")
    # every panel has bars with a size, and a text alternative naming its group
    sizes = page.eval_on_selector_all(
        ".paper-panel svg",
        "(svgs) => svgs.map((s) => [s.getBoundingClientRect().width, s.getAttribute('aria-label'),"
        " [...s.querySelectorAll('rect.paper-bar')].filter((r) => r.getBBox().height > 0).length])",
    )
    assert len(sizes) == 3 * 4 + 2  # Figure 3, Figure 2 for BERT and ELMo, the SD figure
    assert all(w > 100 and label and bars > 0 for w, label, bars in sizes), sizes
    assert "Its reading (section 5.2)" in page.inner_text(".paper-compare")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    path = screenshot(page, f"paper-analyses-{width}")
    page.locator("#figure3").screenshot(path=str(path.with_name(f"paper-figure3-{width}.png")))
