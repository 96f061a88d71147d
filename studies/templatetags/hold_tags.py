"""``{% hold_heartbeat %}``: the heartbeat script (static/js/hold.js) on the participant pages
between consent and the qualification test (also the test sent in the consent's answer, not
the first item sent in the test's: ``hold_beat`` in their context), so that their hold lasts
only while a page is open (``studies.holds.hold_seen``). Elsewhere (the arrival page before
consent, the rating pages, previews) it renders nothing."""

from __future__ import annotations

from django import template
from django.middleware.csrf import get_token
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()

PAGES = ("welcome", "qualification")


@register.simple_tag(takes_context=True)
def hold_heartbeat(context) -> str:
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    if match is None or match.namespace != "participate":
        return ""
    # a page sent in the answer to another page's POST says whether it beats ("hold_beat":
    # the test after the consent does, the first item after the test does not)
    beat = context.get("hold_beat")
    if not (match.url_name in PAGES if beat is None else beat):
        return ""
    return format_html(
        '<script src="{}" defer data-url="{}" data-csrf="{}"></script>',
        static("js/hold.js"),
        reverse("participate:hold", args=[match.kwargs["slug"]]),
        get_token(request),
    )
