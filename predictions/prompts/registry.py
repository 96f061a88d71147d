"""Prompts as versioned data: one JSON file per prompt version under ``data/``.

A prompt file is never edited once a run has used it; a changed prompt is a new file with a
new id (``...-v2``) that names the old one in ``supersedes``. ``digest`` (a hash of the file's
content) lets a run's record show that the text it used is the text on disk today.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
SCHEMA = "ambisite-prompt-v1"
REQUIRED = ("id", "schema", "version", "title", "output", "parameters", "system", "user")


class UnknownPrompt(LookupError, ValueError):
    """No prompt with that id: a lookup that failed, and a bad parameter value where a run
    names it (run creation answers every ValueError with 400)."""


class InvalidPrompt(ValueError):
    pass


@dataclass(frozen=True)
class Prompt:
    """One prompt version. ``system``/``user`` are templates with ``{{name}}`` slots."""

    id: str
    schema: str
    version: int
    title: str
    output: str
    parameters: dict
    system: str
    user: str
    description: str = ""
    template: str = "chat_messages"
    supersedes: str | None = None
    source: str = ""
    notes: tuple[str, ...] = ()
    reask: str = ""
    shots_header: str = ""
    shot_template: str = ""
    shots: tuple[dict, ...] = ()
    digest: str = field(default="", compare=False)

    @property
    def is_comparative(self) -> bool:
        """Whether the prompt judges both senses of a story in one call."""
        return self.output == "json_scores_ab"

    def to_json(self) -> str:
        """The prompt as stored, for download."""
        return (DATA_DIR / f"{self.id}.json").read_text(encoding="utf-8")


def parse_prompt(text: str) -> Prompt:
    """Validate one prompt file's JSON text and build a :class:`Prompt`."""
    data = json.loads(text)
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise InvalidPrompt(f"prompt is missing {', '.join(missing)}")
    if data["schema"] != SCHEMA:
        raise InvalidPrompt(f"prompt {data['id']!r} has schema {data['schema']!r}, not {SCHEMA}")
    known = set(Prompt.__dataclass_fields__) - {"digest"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidPrompt(f"prompt {data['id']!r} has unknown fields {', '.join(unknown)}")
    data["notes"] = tuple(data.get("notes", ()))
    data["shots"] = tuple(data.get("shots", ()))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Prompt(**data, digest=digest)


@cache
def _load_all() -> dict[str, Prompt]:
    prompts = {}
    for path in sorted(DATA_DIR.glob("*.json")):
        prompt = parse_prompt(path.read_text(encoding="utf-8"))
        if prompt.id != path.stem:
            raise InvalidPrompt(f"{path.name} holds prompt {prompt.id!r}; name files by id")
        prompts[prompt.id] = prompt
    return prompts


def all_prompts() -> list[Prompt]:
    """Every stored prompt version, sorted by id."""
    return list(_load_all().values())


def get_prompt(prompt_id: str) -> Prompt:
    try:
        return _load_all()[prompt_id]
    except KeyError:
        known = ", ".join(sorted(_load_all()))
        raise UnknownPrompt(f"unknown prompt {prompt_id!r} (known: {known})") from None
