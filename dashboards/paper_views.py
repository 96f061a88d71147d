"""The "Paper analyses" page (issue 31): the seed papers' analyses beside the site's."""

from __future__ import annotations

from django.shortcuts import render

from ambisite.access import researcher_required
from ambisite.query import bounded_int
from annotations.analyses_ambistory import PAPER_COUNTS, PAPER_TABLE2

from . import kinds, paper_analyses
from .cache import cached_every_kind
from .forms import sample_filter


@researcher_required
def paper_analyses_page(request):
    form = sample_filter(request.GET, known=("judgment_models",))
    fit_now = bounded_int(request.GET.get("judgment_models"), 0, 0, 1) == 1
    rawc, ambistory = cached_every_kind(
        "papers",
        form,
        lambda: (
            paper_analyses.paper_analyses(form.rating_scope),
            paper_analyses.ambistory_splits(form.rating_scope),
        ),
    )
    context = {
        "rawc": paper_analyses.with_judgment_models(rawc, form.rating_scope, fit_now=fit_now),
        "ambistory": ambistory,
        "table2": PAPER_TABLE2,
        "paper_counts": PAPER_COUNTS,
        "scope_text": kinds.scope_text(form.rating_scope),
        "tab": "papers",
        "fit_link": _with(request.GET, judgment_models="1"),
    }
    return render(request, "dashboards/paper_analyses.html", context)


def _with(params, **changes) -> str:
    """The page's query string with ``changes`` (the scope kept)."""
    query = params.copy()
    for name, value in changes.items():
        query[name] = value
    return "?" + query.urlencode()
