"""``{% hold_heartbeat %}``: the heartbeat's address and CSRF token (a ``<meta>`` that the hold
section of static/js/participant.js reads) on the participant pages between consent and the
qualification test (also the test sent in the consent's answer, not the first item sent in the
test's: ``hold_beat`` in their context), so that their hold lasts only while a page is open
(``studies.holds.hold_seen``). Elsewhere (the arrival page before consent, the rating pages,
previews) it renders nothing.

``{% participant_script %}``: the participant pages' one script where a page needs it for the
heartbeat or for its own address (``page_url``); pages with more to do (the qualification,
rating and writing pages) link it themselves instead."""

from __future__ import annotations

from django import template
from django.middleware.csrf import get_token
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()

PAGES = ("welcome", "qualification")


def _beats(context) -> bool:
    match = getattr(context.get("request"), "resolver_match", None)
    if match is None or match.namespace != "participate":
        return False
    # a page sent in the answer to another page's POST says whether it beats ("hold_beat":
    # the test after the consent does, the first item after the test does not)
    beat = context.get("hold_beat")
    return match.url_name in PAGES if beat is None else bool(beat)


@register.simple_tag(takes_context=True)
def hold_heartbeat(context) -> str:
    if not _beats(context):
        return ""
    request = context["request"]
    return format_html(
        '<meta name="hold-heartbeat" content="{}" data-csrf="{}">',
        reverse("participate:hold", args=[request.resolver_match.kwargs["slug"]]),
        get_token(request),
    )


@register.simple_tag(takes_context=True)
def participant_script(context) -> str:
    if not (context.get("page_url") or _beats(context)):
        return ""
    return format_html('<script src="{}" defer></script>', static("js/participant.js"))
