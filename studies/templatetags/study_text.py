"""A small, safe text renderer for guidelines: escapes everything, then turns the few
markdown marks the paper's guidelines use (#, ##, -, **bold**, *italic*) into HTML."""

from __future__ import annotations

import re
from functools import lru_cache

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from annotations.sensechoice import TARGET
from studies import study_texts

register = template.Library()

BOLD = re.compile(r"\*\*(.+?)\*\*")
ITALIC = re.compile(r"\*(.+?)\*")


def _inline(text: str) -> str:
    return ITALIC.sub(r"<em>\1</em>", BOLD.sub(r"<strong>\1</strong>", escape(text)))


@register.filter
def guidelines(text: str) -> SafeString:
    """The guidelines as HTML; each text is converted once per process (every arrival's
    welcome page shows them; converting the paper's guidelines takes 0.13 ms)."""
    return _guidelines(str(text or ""))


@register.simple_tag
def study_guidelines(study) -> SafeString:
    """A study's guidelines as HTML, their placeholders filled from its settings
    (``study_texts.filled``: "Each annotator is assigned {items}" says the batch size)."""
    return _guidelines(study_texts.filled(str(study.guidelines or ""), study))


@register.filter
def items_noun(study) -> str:
    """The plural noun of the study's items ("samples", "pairs", "endings"):
    ``study_texts.item_nouns``, the rule of the welcome page and the guidelines' {items}."""
    return study_texts.item_nouns(study)[1]


@lru_cache(maxsize=256)
def _guidelines(text: str) -> SafeString:
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


@register.simple_tag
def scale_options(scale_rows, current) -> SafeString:
    """The radio buttons of the rating scale (``scale_rows``: score, full text, short words
    shown under the number), ``current`` checked. The markup is the same on every rating
    page but for the checked button, so each variant is rendered once per process (a
    template loop over the five options cost a third of the page's rendering)."""
    rows = scale_rows if isinstance(scale_rows, tuple) else tuple(map(tuple, scale_rows))
    return _scale_options(rows, "None" if current is None else str(current))


@lru_cache(maxsize=64)
def _scale_options(rows: tuple[tuple, ...], current: str) -> SafeString:
    return mark_safe(  # noqa: S308 - format_html escapes every value
        "".join(
            format_html(
                '\n      <label class="option" title="{text}">\n'
                '        <input type="radio" name="score" value="{n}" id="score-{n}"'
                ' aria-label="{n} &ndash; {text}"{checked}>\n'
                '        <span class="num" aria-hidden="true">{n}</span>'
                '<span class="word" aria-hidden="true">{word}</span>\n'
                "      </label>\n      ",
                n=n,
                text=text,
                word=word,
                checked=mark_safe(" checked") if current == str(n) else "",
            )
            for n, text, word in rows
        )
    )


@register.simple_tag
def qualification_scale(field, scale_rows) -> SafeString:
    """The 1-5 radio buttons of one qualification question (``field``: its bound field),
    the answer sent before checked. Rendered once per question, answer and process, as
    ``scale_options`` is for the rating page: the template loop resolved the field's name
    and id for every option, and was most of the qualification page's rendering."""
    rows = scale_rows if isinstance(scale_rows, tuple) else tuple(map(tuple, scale_rows))
    return _qualification_scale(rows, field.html_name, field.auto_id, str(field.value()))


@lru_cache(maxsize=1024)
def _qualification_scale(rows: tuple[tuple, ...], name: str, id_: str, current: str):
    return mark_safe(  # noqa: S308 - format_html escapes every value
        "".join(
            format_html(
                '<label class="option" title="{text}"><input type="radio" name="{name}"'
                ' value="{n}" id="{id}_{n}" aria-label="{n} &ndash; {text}" required{checked}>'
                ' <span class="num" aria-hidden="true">{n}</span>'
                '<span class="word" aria-hidden="true">{word}</span></label>',
                n=n,
                text=text,
                word=word,
                name=name,
                id=id_,
                checked=mark_safe(" checked") if current == str(n) else "",
            )
            for n, text, word in rows
        )
    )


@register.simple_tag
def scale_list(scale: dict) -> SafeString:
    """The scale as list items (``<li><strong>1:</strong> text</li>``), rendered once."""
    return _scale_list(tuple(scale.items()))


@lru_cache(maxsize=8)
def _scale_list(items: tuple[tuple[int, str], ...]) -> SafeString:
    return mark_safe(  # noqa: S308 - format_html escapes every value
        "".join(format_html("<li><strong>{}:</strong> {}</li>", n, text) for n, text in items)
    )


@register.simple_tag
def mark_word(text: str, word: str) -> SafeString:
    """``text`` escaped, with the first whole-word use of ``word`` (any case; a longer form
    starting with it, e.g. "bats" for "bat", when there is none) in ``<strong>``."""
    if word:
        for pattern in (rf"\b{re.escape(word)}\b", rf"\b{re.escape(word)}\w*"):
            found = re.search(pattern, text, flags=re.IGNORECASE)
            if found:
                start, end = found.span()
                return format_html(
                    '{}<strong class="target">{}</strong>{}',
                    text[:start],
                    text[start:end],
                    text[end:],
                )
    return format_html("{}", text)


@register.simple_tag
def mark_target(text: str, word: str = "") -> SafeString:
    """A sense-choice context: its ``<t>...</t>`` target in ``<strong>``, the rest escaped
    (a text without the marker marks ``word`` like :func:`mark_word`)."""
    found = TARGET.search(text)
    if found is None:
        return mark_word(text, word)
    return format_html(
        '{}<strong class="target">{}</strong>{}',
        text[: found.start()],
        found.group(1),
        text[found.end() :],
    )
