"""/runs/ (issue 28): every number in the run table is formatted (three decimals, a dash when
there is none, never a raw float) and every form's button is a styled one."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from predictions.models import ModelRun
from tests.pagehtml import parse
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db

CELL = re.compile(r"^(\d+/\d+|-?\d\.\d{3}|–)$")


def _runs(split) -> None:
    def run(name: str, **fields) -> None:
        ModelRun.objects.create(name=name, backend="random", split=split, total=24, **fields)

    run(
        "plausibility",
        status="succeeded",
        done=24,
        scores={"accuracy": 0.7443181818181818, "spearman": 0.47132, "total": 24},
    )
    run("relatedness", status="succeeded", done=24, scores={"spearman": 0.123456789, "total": 24})
    run(
        "no spearman",
        status="succeeded",
        done=24,
        scores={"accuracy": 1, "spearman": None, "total": 24},
    )
    run("zero", status="succeeded", done=24, scores={"accuracy": 0, "spearman": 0.0, "total": 24})
    run("running", status="running", done=3, rate=2.3456789)
    run(
        "derived",
        status="succeeded",
        done=24,
        scores={"accuracy": 0.5, "spearman": 0.25, "total": 24},
        fitted_on={"mode": "split", "split": "ambistory/train", "params": {"a": 0.333333333}},
    )


def test_every_number_in_the_run_table_is_formatted(researcher_client):
    _runs(small_split())
    page = researcher_client.get(reverse("runs:list")).content.decode()
    table = page[page.index('id="run-table"') : page.index("</table>")]
    cells = [
        re.sub(r"<[^>]+>", "", c).strip()
        for c in re.findall(r'<td class="num">(.*?)</td>', table, re.S)
    ]
    assert len(cells) == 6 * 3
    assert [c for c in cells if not CELL.match(c)] == []
    assert not re.search(r"\d\.\d{4,}", re.sub(r"<[^>]+>", " ", table))
    assert "0.744" in cells and "1.000" in cells and "0.123" in cells and "0.000" in cells


def test_every_form_button_on_the_page_is_styled(researcher_client):
    small_split()
    page = researcher_client.get(reverse("runs:list")).content.decode()
    main = page[page.index("<main") :]
    buttons = [a for tag, a in parse(main).elements if tag == "button"]
    assert len(buttons) >= 3
    assert [a for a in buttons if "primary" not in a.get("class", "").split()] == []
