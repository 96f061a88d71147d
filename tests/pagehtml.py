"""Reading rendered pages in tests with the standard library's HTML parser: element ids,
label targets and the values a form would submit untouched."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.forms: dict[str, dict[str, str]] = {}
        self._form: str | None = None
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        self.elements.append((tag, a))
        if tag == "form":
            self._form = a.get("id", f"form{len(self.forms)}")
            self.forms[self._form] = {}
        elif self._form is None or not a.get("name") and tag != "option":
            return
        elif tag == "input" and a.get("type") not in ("submit", "button", "checkbox", "radio"):
            self.forms[self._form][a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select, self._options = a["name"], []
        elif tag == "option" and self._select:
            self._options.append((a.get("value", ""), "selected" in a))
        elif tag == "textarea":
            self._textarea = a["name"]
            self.forms[self._form][a["name"]] = ""

    def handle_data(self, data):
        if self._textarea and self._form:
            self.forms[self._form][self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select" and self._select and self._form:
            chosen = [v for v, on in self._options if on] or [v for v, _ in self._options[:1]]
            if chosen:
                self.forms[self._form][self._select] = chosen[0]
            self._select = None


def parse(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


def repeated_ids(html: str) -> list[str]:
    ids = Counter(a["id"] for _, a in parse(html).elements if a.get("id"))
    return sorted(k for k, n in ids.items() if n > 1)


def label_problems(html: str) -> list[str]:
    """Every ``label[for]`` must name exactly one element of the page."""
    elements = parse(html).elements
    ids = Counter(a["id"] for _, a in elements if a.get("id"))
    targets = [a["for"] for tag, a in elements if tag == "label" and a.get("for")]
    return [f"{t} ({ids[t]} elements)" for t in targets if ids[t] != 1]


def form_defaults(html: str, form_id: str) -> dict[str, str]:
    """What submitting the form untouched sends (text inputs, selects, textareas)."""
    return parse(html).forms[form_id]
