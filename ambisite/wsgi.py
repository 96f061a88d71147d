"""The WSGI application (gunicorn: ``ambisite.wsgi:application``, see gunicorn.conf.py).

Everything a first request would otherwise load is loaded here, when the server imports this
module: the URL configuration (and with it every view module, scipy included) and the
participant pages' templates. With gunicorn's ``preload_app`` that happens once in the
master and every worker is forked with it, so no worker spends its first requests (several
CPU-seconds each) importing; without preload each worker does it before it serves.

The objects made so far (about 100,000: modules, URL patterns, compiled templates) live as
long as the process, so they are then frozen out of the garbage collector's view
(``gc.freeze``): a full collection no longer walks them (in bench/rating_path.py's walk,
full collections took about 7% of the CPU before and 1-2% after), and a forked worker does
not touch, and so copy, the pages they lie on."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
application = get_wsgi_application()

WARM_TEMPLATES = (
    "studies/welcome.html",
    "studies/qualification.html",
    "studies/rate.html",
    "studies/kinds/story_item.html",
    "studies/kinds/pair_item.html",
    "studies/kinds/sense_item.html",
    "wug/pair_item.html",
    "studies/fragment_base.html",
    "studies/done.html",
    "studies/problem.html",
)


def warm_up() -> None:
    """Import the URL configuration and compile the participant templates (no database)."""
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  (a lazy property: reading it imports)
    for name in WARM_TEMPLATES:
        get_template(name)
    gc.collect()
    gc.freeze()


warm_up()
