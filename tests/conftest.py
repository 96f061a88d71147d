"""The shared cast and data fixtures.

The cast: one researcher (staff), two annotators (study participants, no login) and one
outsider (a logged-in user who is not staff).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "ambistory"
VECTORS = Path(__file__).resolve().parent / "vectors"
CONFORMANCE = VECTORS / "scoring-conformance"


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user(
        username="rita", password="rita-password", is_staff=True
    )


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user(username="otto", password="otto-password")


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def outsider_client(client, outsider):
    client.force_login(outsider)
    return client


def load_split_json(split: str) -> dict:
    with open(DATA / f"{split}.json", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture
def dev_json() -> dict:
    return load_split_json("dev")


@pytest.fixture
def dev_split(db, dev_json):
    """The AmbiStory dev set imported into the test database."""
    from annotations.importers import ambistory_import, parse_ambistory

    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    from annotations.models import Split

    return Split.objects.get(dataset__name="ambistory", name="dev")
