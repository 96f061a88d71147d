"""The setups of a use-pair study's samples (``wug.crowd._samples``): a pair's setup is its
two uses' labels under the word's lemma (``annotations.Setup``, unique per homonym and
texts), so pairs of the same texts under one lemma are one setup, whether another word of
that lemma holds them or a deleted study asked them before; the study is still created."""

from __future__ import annotations

import pytest

from studies import services
from studies.models import Slot, StudySample
from tests.studies.helpers import rate_all
from wug.crowd import crowd_study_create
from wug.formats import read_folder
from wug.models import UsePair, Word
from wug.services import wug_import

from .crowd_helpers import arrive

pytestmark = pytest.mark.django_db

USES = "lemma\tidentifier\tgrouping\tcontext\tindexes_target_token\tindexes_target_sentence\n"
JUDGMENTS = "identifier1\tidentifier2\tannotator\tjudgment\tcomment\tlemma\n"


def _durel_word(root, name: str, lemma: str = "ice cream", n: int = 6) -> None:
    """A DURel word folder whose target is a two-word expression, ``n`` uses, one judgment."""
    folder = root / name
    folder.mkdir(parents=True)
    rows = []
    for i in range(n):
        context = f"Story {i}. We had {lemma} number {i} after lunch."
        start = context.index(lemma)
        sentence = context.index("We")
        rows.append(
            f"{lemma}\tu{i}\t1\t{context}\t{start}:{start + len(lemma)}\t{sentence}:{len(context)}"
        )
    (folder / "uses.csv").write_text(USES + "\n".join(rows) + "\n")
    (folder / "judgments.csv").write_text(JUDGMENTS + f"u0\tu1\ta1\t4\t\t{lemma}\n")


def _words(tmp_path, *names: str) -> list[Word]:
    for name in names:
        _durel_word(tmp_path / "in", name)
    wug_import(words=read_folder(tmp_path / "in"))
    return list(Word.objects.filter(name__in=names))


def _create(words: list[Word], **fields):
    defaults = dict(
        title="Ice cream",
        slug="ice-cream",
        pairs_per_round=5,
        judgments_per_pair=2,
        pairs_per_participant=3,
        gold_pairs_total=2,
        gold_per_participant=1,
    )
    return crowd_study_create(words=words, **{**defaults, **fields})


def test_two_words_of_one_two_word_lemma_with_the_same_uses_make_one_study(tmp_path):
    words = _words(tmp_path, "ice_cream", "ice_cream_v2")  # e.g. two releases of a dataset
    crowd = _create(words, pairs_per_round=3)  # 12 slots: 4 participants of 3 pairs
    pairs = UsePair.objects.filter(round__crowd_study=crowd)
    assert {p.word.name for p in pairs} == {"ice_cream", "ice_cream_v2"}
    assert StudySample.objects.filter(study=crowd.study).count() == pairs.count() == 6
    # the same two texts are one setup: no participant gets both words' copy of a pair
    setups = {p.sample.story.setup_id for p in pairs}
    assert len(setups) == len({(p.use1.identifier, p.use2.identifier) for p in pairs})
    study = services.study_open(study=crowd.study)
    for n in range(1, 5):
        rate_all(arrive(study, n))
    assert not Slot.objects.filter(study=study, status="free").exists()


def test_a_study_deleted_and_created_again_asks_its_pairs_again(tmp_path):
    (word,) = _words(tmp_path, "ice_cream")
    first = _create([word])
    asked = set(UsePair.objects.filter(round__crowd_study=first).values_list("use1", "use2"))
    first.study.delete()  # its samples and their setups stay in the word's dataset
    again = _create([word])
    pairs = UsePair.objects.filter(round__crowd_study=again)
    assert set(pairs.values_list("use1", "use2")) == asked
    assert StudySample.objects.filter(study=again.study).count() == len(asked)
