"""The "Paper analyses" page (issue 31): the seed papers' analyses beside the site's."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache, caches
from django.shortcuts import render

from ambisite.access import researcher_required
from ambisite.query import bounded_int
from annotations.analyses_ambistory import PAPER_COUNTS, PAPER_TABLE2

from . import background, kinds, paper_analyses
from .cache import cached_every_kind
from .forms import sample_filter


@researcher_required
def paper_analyses_page(request):
    form = sample_filter(request.GET, known=("judgment_models",), samples=False)
    fit_now = bounded_int(request.GET.get("judgment_models"), 0, 0, 1) == 1
    rawc, ambistory = cached_every_kind(
        "papers",
        form,
        lambda: (
            paper_analyses.paper_analyses(form.rating_scope),
            paper_analyses.ambistory_splits(form.rating_scope),
        ),
    )
    in_worker = fit_now and _fits_in_worker(request, rawc)
    context = {
        "rawc": paper_analyses.with_judgment_models(
            rawc, form.rating_scope, fit_now=fit_now and not in_worker
        ),
        "fitting": in_worker,
        "ambistory": ambistory,
        "table2": PAPER_TABLE2,
        "paper_counts": PAPER_COUNTS,
        "scope_text": kinds.scope_text(form.rating_scope),
        "tab": "papers",
        "fit_link": _with(request.GET, judgment_models="1"),
    }
    return render(request, "dashboards/paper_analyses.html", context)


logger = logging.getLogger(__name__)
FIT_LOCK_SECONDS = 600  # a fit takes about 40 s; a lost task's lock frees itself after this


def _fits_in_worker(request, rawc: list[paper_analyses.RawcAnalyses]) -> bool:
    """Asked to fit the judgment-level models (about 40 s, longer than a web worker may
    take on a request: gunicorn's timeout is 30 s), send the fit to the Celery worker,
    which requests this page with ``judgment_models=1`` itself and keeps the result in the
    shared cache, and say so on the page (which refreshes itself until the models show);
    one task per set of judgments (a lock in the cache). False where there is no worker
    sharing this process's cache (the background off: the per-process memory cache, as
    in ``make demo``'s development server, which has no timeout): the request fits."""
    if background.may_serve_stale() is None:
        return False
    pending = [a.judgment_key for a in rawc if a.judgment_key and not a.problem]
    pending = [key for key in pending if cache.get(key) is None]
    if not pending:
        return False  # fitted already: shown from the cache
    store = caches[settings.DASHBOARD_CACHE]  # where the task releases its locks
    locks = [
        f"dash-fit:{key}"
        for key in pending
        if store.add(f"dash-fit:{key}", time.time(), FIT_LOCK_SECONDS)
    ]
    if locks:
        try:
            user = request.user.pk if request.user.is_authenticated else None
            background.enqueue(request.get_full_path(), user, locks)
        except Exception as exc:  # a broker down: fitted in this request as before
            logger.warning("judgment-model fit not enqueued: %s", exc)
            store.delete_many(locks)
            return False
    return True


def _with(params, **changes) -> str:
    """The page's query string with ``changes`` (the scope kept)."""
    query = params.copy()
    for name, value in changes.items():
        query[name] = value
    return "?" + query.urlencode()
