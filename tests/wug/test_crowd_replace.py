"""``import_wug --replace`` of a word with crowd studies keeps the uses they ask about
(same identifier, same text), so the studies keep their pairs, gold pairs and judgments in
the graph; a replacement that would drop or change such a use is refused, naming the study
and the use."""

from __future__ import annotations

import copy

import pytest

from studies import services
from tests.studies.helpers import rate_all
from wug.analysis import word_judgments
from wug.exporters import export_words
from wug.formats import read_word
from wug.models import GoldPair, Judgment, Use, UsePair, Word
from wug.services import WugImportError, wug_import

from .crowd_helpers import arrive, small_word
from .test_crowd import _study

pytestmark = pytest.mark.django_db


def _judged(tmp_path, **fields):
    """A word whose crowd study judged round 1, and its export's files."""
    word = small_word()
    study = services.study_open(study=_study(word, **fields).study)
    n = 1
    while study.slots.filter(status="free").exists():
        rate_all(arrive(study, n))
        n += 1
    (folder,) = export_words([word], tmp_path)
    return word, read_word(folder)


@pytest.fixture
def judged(tmp_path):
    return _judged(tmp_path)


def _ids(word):
    return dict(Use.objects.filter(word=word).values_list("identifier", "pk"))


def test_replace_keeps_the_uses_pairs_and_crowd_judgments_a_study_asks_about(judged):
    word, files = judged
    before, pairs = _ids(word), UsePair.objects.filter(word=word).count()
    crowd = sorted((j.use1, j.use2, j.annotator, j.score) for j in word_judgments(word))
    files = copy.deepcopy(files)
    extra = dict(files.judgments.rows[0], annotator="outside", judgment="2.0", round="")
    files.judgments.rows.append(extra)
    report = wug_import(words=[files], replace=True)
    assert report.words[word.name][2] == "replaced"
    assert _ids(word) == before  # the same rows
    assert UsePair.objects.filter(word=word).count() == pairs
    assert GoldPair.objects.filter(use1__word=word).count() == 2
    # the crowd's rows of the export are not imported a second time: they are read live
    assert list(Judgment.objects.filter(word=word).values_list("annotator", flat=True)) == [
        "outside"
    ]
    after = sorted((j.use1, j.use2, j.annotator, j.score) for j in word_judgments(word))
    assert after == sorted([*crowd, (extra["identifier1"], extra["identifier2"], "outside", 2)])
    assert wug_import(words=[files], replace=True).words[word.name][2] == "unchanged"


def test_replace_refuses_to_drop_or_change_a_use_a_crowd_study_asks_about(judged):
    word, files = judged
    asked = UsePair.objects.filter(word=word).first().use1.identifier
    dropped = copy.deepcopy(files)
    dropped.uses.rows = [r for r in dropped.uses.rows if r["identifier"] != asked]
    dropped.judgments.rows = [
        r for r in dropped.judgments.rows if asked not in (r["identifier1"], r["identifier2"])
    ]
    with pytest.raises(WugImportError, match=f"use '{asked}' of crowd study 'planes' is not in"):
        wug_import(words=[dropped], replace=True)
    changed = copy.deepcopy(files)
    row = next(r for r in changed.uses.rows if r["identifier"] == asked)
    row["context"] = row["context"].replace("Background", "Foreground")
    with pytest.raises(WugImportError, match="has another text there"):
        wug_import(words=[changed], replace=True)
    assert Word.objects.get(name=word.name).digest == "test"  # nothing was written


def test_replace_rewrites_a_use_no_crowd_study_asks_about(tmp_path):
    word, files = _judged(tmp_path, pairs_per_round=2, pairs_per_participant=2)
    asked = set(UsePair.objects.filter(word=word).values_list("use1__identifier", flat=True))
    asked |= set(UsePair.objects.filter(word=word).values_list("use2__identifier", flat=True))
    asked |= set(
        GoldPair.objects.filter(use1__word=word).values_list("use1__identifier", flat=True)
    )
    free = sorted(set(_ids(word)) - asked)
    assert free, "the fixture leaves a use no study asks about"
    before = _ids(word)
    changed = copy.deepcopy(files)
    row = next(r for r in changed.uses.rows if r["identifier"] == free[0])
    row["context"] = row["context"].replace("Background", "Foreground")
    wug_import(words=[changed], replace=True)
    after = _ids(word)
    assert after[free[0]] != before[free[0]]
    assert Use.objects.get(pk=after[free[0]]).context.startswith("Foreground")
    assert all(after[i] == before[i] for i in asked)
