"""Import of AmbiStory JSON: counts, idempotence, and all-or-nothing rejection."""

import copy
import json

import pytest
from django.db import connection
from django.db.models import Count

from annotations.exporters import iter_ambistory_json
from annotations.importers import (
    AmbiStoryFormatError,
    ImportReport,
    ambistory_import,
    parse_ambistory,
)
from annotations.models import (
    Dataset,
    Homonym,
    Rater,
    Rating,
    Sample,
    Sense,
    Setup,
    Split,
    Story,
)
from tests.conftest import load_split_json
from tests.factories import ambistory_sample, ambistory_setup
from tests.locks import others_wait_then_commit, second_waits_on_first

pytestmark = pytest.mark.django_db
MODELS = (Homonym, Sense, Setup, Story, Sample, Rater, Rating, Split)


def _counts() -> dict:
    return {model.__name__: model.objects.count() for model in MODELS}


def _expected(data: dict) -> tuple[int, int, int]:
    setups = {(s["homonym"], s["precontext"], s["sentence"]) for s in data.values()}
    ratings = sum(len(s["choices"]) for s in data.values())
    return len(data), len(setups), ratings


@pytest.mark.parametrize("split, n_samples, n_setups", [("train", 2280, 380), ("dev", 588, 98)])
def test_it_imports_a_split_with_its_setups_and_every_rating(split, n_samples, n_setups):
    data = load_split_json(split)
    samples, setups, ratings = _expected(data)
    assert (samples, setups) == (n_samples, n_setups)
    report = ambistory_import(samples=parse_ambistory(data), split=split)
    assert Sample.objects.in_split("ambistory", split).count() == n_samples
    assert Setup.objects.count() == n_setups
    assert Rating.objects.count() == ratings >= 5 * n_samples
    assert report.ratings_created == ratings
    per_setup = (
        Sample.objects.values("story__setup").annotate(n=Count("id")).values_list("n", flat=True)
    )
    assert set(per_setup) == {6}


def test_a_setup_has_two_senses_and_three_stories_one_of_them_open_ended(dev_split):
    setup = Setup.objects.first()
    stories = list(setup.stories.all())
    assert len(stories) == 3
    assert sum(not story.has_ending for story in stories) == 1
    senses = set(Sample.objects.filter(story__setup=setup).values_list("sense", flat=True))
    assert len(senses) == 2


def test_ratings_keep_their_order_and_belong_to_anonymous_imported_raters(dev_split, dev_json):
    sample = Sample.objects.get(split=dev_split, dataset_id="0")
    ratings = list(sample.ratings.order_by("position"))
    assert [r.score for r in ratings] == dev_json["0"]["choices"]
    assert [r.nonsensical for r in ratings] == dev_json["0"]["nonsensical"]
    assert {r.rater.kind for r in ratings} == {Rater.Kind.IMPORTED}


def test_mean_and_sd_are_derived_from_the_ratings(dev_split, dev_json):
    for sample in Sample.objects.filter(split=dev_split).with_stats()[:50]:
        row = dev_json[sample.dataset_id]
        assert sample.mean == pytest.approx(row["average"], abs=1e-12)
        assert sample.sd == pytest.approx(row["stdev"], abs=1e-9)
        assert sample.n_nonsensical == sum(row["nonsensical"])


def test_a_second_import_of_the_same_file_changes_no_row(dev_split, dev_json):
    before = _counts()
    stamps = list(Rating.objects.order_by("id").values_list("id", "updated_at"))
    report = ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    assert not report.changed
    assert report.samples_existing == 588
    assert _counts() == before
    assert list(Rating.objects.order_by("id").values_list("id", "updated_at")) == stamps


def _broken(mutate) -> dict:
    data = {**ambistory_setup(0), **ambistory_setup(6, homonym="pitch")}
    data = copy.deepcopy(data)
    mutate(data["9"])
    return data


BROKEN = {
    "wrong type": (lambda s: s.update(choices="4, 5"), "choices"),
    "score 6": (lambda s: s["choices"].__setitem__(2, 6), "choices"),
    "average disagrees": (lambda s: s.update(average=s["average"] + 0.2), "average"),
    "stdev disagrees": (lambda s: s.update(stdev=0.5), "stdev"),
    "missing field": (lambda s: s.pop("example_sentence"), "example_sentence"),
    "text not a string": (lambda s: s.update(sentence=7), "sentence"),
    "nonsensical length": (lambda s: s["nonsensical"].pop(), "nonsensical"),
    "float score": (lambda s: s["choices"].__setitem__(0, 4.5), "choices"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_sample_is_rejected_naming_its_id_and_field_and_nothing_is_written(case):
    mutate, field_name = BROKEN[case]
    before = _counts()
    with pytest.raises(AmbiStoryFormatError) as caught:
        samples = parse_ambistory(_broken(mutate))
        ambistory_import(samples=samples, split="dev")
    assert caught.value.sample == "9"
    assert caught.value.field == field_name
    assert "sample 9" in str(caught.value) and field_name in str(caught.value)
    assert _counts() == before


def test_a_conflicting_reimport_is_refused_and_rolls_back_everything():
    data = ambistory_setup(0)
    ambistory_import(samples=parse_ambistory(data), split="dev")
    before = _counts()
    changed = copy.deepcopy({**data, **ambistory_setup(6, homonym="pitch")})
    changed["3"]["choices"] = [1, 1, 1, 1, 1]
    changed["3"]["average"], changed["3"]["stdev"] = 1.0, 0.0
    with pytest.raises(AmbiStoryFormatError, match="sample 3: field 'choices'"):
        ambistory_import(samples=parse_ambistory(changed), split="dev")
    # the new setup "pitch" (ids 6-11) was not half-written either
    assert _counts() == before


def test_redacted_labels_parse_only_when_allowed():
    sample = ambistory_sample("0")
    sample.update(choices="(???)", average="(???)", stdev="(???)", nonsensical="(???)")
    with pytest.raises(AmbiStoryFormatError, match="choices"):
        parse_ambistory({"0": sample})
    (parsed,) = parse_ambistory({"0": sample}, allow_redacted=True)
    assert not parsed.labelled and parsed.sentence == sample["sentence"]


def test_a_file_that_is_not_an_object_of_samples_is_rejected():
    with pytest.raises(AmbiStoryFormatError, match="JSON object"):
        parse_ambistory([1, 2, 3])
    with pytest.raises(AmbiStoryFormatError, match="sample 0"):
        parse_ambistory({"0": "not a sample"})


def _positions(split: str) -> list[tuple[str, int]]:
    rows = Sample.objects.filter(split__name=split).order_by("position", "id")
    return list(rows.values_list("dataset_id", "position"))


def test_a_second_file_into_the_same_split_is_numbered_after_the_first():
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # ids 0-5
    later = ambistory_setup(6, homonym="pitch")  # ids 6-11, a file of their own
    ambistory_import(samples=parse_ambistory(later), split="dev")
    positions = _positions("dev")
    assert len({p for _, p in positions}) == 12  # no two samples share a position
    assert [sid for sid, _ in positions] == [str(k) for k in range(12)]  # first file first


def test_two_files_into_one_split_export_as_the_two_files_joined():
    """The export follows the split's order: the first file, then the second, nothing lost
    or re-typed (before, the two interleaved, 0, 6, 1, 7, ..., with ties either way)."""
    first, second = ambistory_setup(0), ambistory_setup(6, homonym="pitch")
    ambistory_import(samples=parse_ambistory(first), split="dev")
    ambistory_import(samples=parse_ambistory(second), split="dev")
    exported = json.loads("".join(iter_ambistory_json(Sample.objects.all())))
    assert list(exported) == [*first, *second]
    assert exported == {**first, **second}


def test_a_superset_keeps_the_stored_positions_and_adds_the_new_samples_after_them():
    ambistory_import(samples=parse_ambistory(ambistory_setup(6, homonym="pitch")), split="dev")
    before = dict(_positions("dev"))
    both = {**ambistory_setup(0), **ambistory_setup(6, homonym="pitch")}
    report = ambistory_import(samples=parse_ambistory(both), split="dev")
    assert report.samples_created == 6
    positions = dict(_positions("dev"))
    assert {k: positions[k] for k in before} == before  # nothing renumbered
    assert len(set(positions.values())) == 12
    assert [positions[str(k)] for k in range(6)] == list(range(6, 12))  # in file order


def test_two_ids_with_one_story_and_sense_are_refused_naming_both_and_nothing_is_written():
    data = copy.deepcopy(ambistory_setup(0))
    data["6"] = copy.deepcopy(data["2"])  # the same sample again, under another id
    before = _counts()
    with pytest.raises(AmbiStoryFormatError, match="sample 6: .*sample 2") as caught:
        ambistory_import(samples=parse_ambistory(data), split="dev")
    assert caught.value.sample == "6"
    assert _counts() == before


def test_a_stored_sample_under_a_new_id_is_refused_naming_both():
    data = ambistory_setup(0)
    ambistory_import(samples=parse_ambistory(data), split="dev")
    before = _counts()
    renumbered = {str(int(k) + 100): v for k, v in data.items()}  # a release with new ids
    with pytest.raises(AmbiStoryFormatError, match="sample 100: .*sample 0"):
        ambistory_import(samples=parse_ambistory(renumbered), split="dev")
    assert _counts() == before


def _need_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")


def _importing(data: dict, split: str):
    return lambda: ambistory_import(samples=parse_ambistory(data), split=split)


def _both_at_once(first: dict, second: dict, splits: tuple[str, str]) -> list:
    """Import ``first`` into ``splits[0]`` and hold its transaction open until the import of
    ``second`` into ``splits[1]`` (started meanwhile, in another thread and connection) waits
    on it; then commit. Returns what each import returned or raised."""
    _need_postgresql()
    return second_waits_on_first(_importing(first, splits[0]), _importing(second, splits[1]))


def _at_once(first: dict, second: dict, splits: tuple[str, str] = ("dev", "dev")) -> list:
    """``_both_at_once``'s exceptions and the second import's report."""
    done = _both_at_once(first, second, splits)
    return [o for o in done[:1] if isinstance(o, Exception)] + done[1:]


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_imports_into_one_split_at_once_number_one_after_the_other():
    """The second import reads the split's last position only once the first has committed
    (the split's row is locked in ``positions_after``): without the lock it read it before
    the first's samples were visible and numbered its own from the same position."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # ids 0-5
    outcome = _at_once(ambistory_setup(6, homonym="pitch"), ambistory_setup(12, homonym="bat"))
    assert [type(o) for o in outcome] == [ImportReport]
    positions = _positions("dev")
    assert len(positions) == 18
    assert len({p for _, p in positions}) == 18  # no two samples share a position


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_the_same_file_imported_twice_at_once_is_written_once_and_both_succeed():
    """The second import takes the split's lock before it reads what is stored, so it waits
    for the first and then finds every sample: nothing to write. Before, it read first,
    found nothing, and failed on a unique constraint (the homonym's, then the sample's)."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # the split
    data = ambistory_setup(6, homonym="pitch")
    alone = _counts()
    outcome = _at_once(data, data)
    assert [type(o) for o in outcome] == [ImportReport]
    assert (outcome[0].samples_created, outcome[0].samples_existing) == (0, 6)
    assert outcome[0].ratings_created == 0 and not outcome[0].changed
    samples, setups, ratings = _expected(data)
    assert Sample.objects.count() - alone["Sample"] == samples
    assert Setup.objects.count() - alone["Setup"] == setups
    assert Rating.objects.count() - alone["Rating"] == ratings


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_imports_into_two_splits_that_share_a_new_homonym_at_once_both_succeed():
    """The splits' locks do not order imports into two splits, so the second inserts the
    homonym while the first's is uncommitted: the insert waits for the first's commit and
    then skips the row and reads it (``get_or_create_many``). Before, it failed on the
    homonym's unique constraint once the first had committed."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # the dataset
    first = ambistory_setup(6, homonym="pitch")
    second = ambistory_setup(0, homonym="pitch", sentence="The pitch was wet.")
    outcome = _at_once(first, second, splits=("dev", "train"))
    assert [type(o) for o in outcome] == [ImportReport], outcome
    assert outcome[0].samples_created == 6
    assert Homonym.objects.filter(form="pitch").count() == 1
    assert Sense.objects.filter(homonym__form="pitch").count() == 2  # the first's, shared
    assert Sample.objects.in_split("ambistory", "train").count() == 6


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_the_same_new_setup_imported_into_two_splits_at_once_is_refused_by_name():
    """The homonym is stored already; both files bring the same new setup, stories and
    senses. The second waits on the first's uncommitted setup, then reads it and is refused
    as a sample of the other split (``_check_same_texts``), the one message for it. Before,
    it failed on the setup's unique constraint."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # "bank"
    data = ambistory_setup(6, sentence="The bank was closed.")
    before = _counts()
    outcome = _at_once(data, ambistory_setup(0, sentence="The bank was closed."), ("dev", "train"))
    assert [type(o) for o in outcome] == [AmbiStoryFormatError], outcome
    assert str(outcome[0]) == "sample 0: already exists in split ambistory/dev (as sample 6)"
    assert Sample.objects.count() - before["Sample"] == 6  # the first's only
    assert not Sample.objects.in_split("ambistory", "train").exists()


# Other meanings of "bank", so that a file of these setups holds other samples (story and
# judged sense) than ``ambistory_setup``'s: both files are valid in two splits at once.
OTHER_MEANINGS = (
    ("a row of similar things", "A bank of switches lined the wall."),
    ("to tilt an aircraft in a turn", "The pilot banked to the left."),
)


def _setups(first_id: int, sentences: list[str], meanings=None) -> dict:
    """One ``ambistory_setup`` of "bank" per sentence, in this order, ids on from first_id."""
    kwargs = {"meanings": meanings} if meanings else {}
    data: dict = {}
    for k, sentence in enumerate(sentences):
        data |= ambistory_setup(first_id + 6 * k, sentence=sentence, **kwargs)
    return data


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_imports_that_create_the_same_setups_in_opposite_orders_both_succeed():
    """Both files bring the new setups A, B and C, the first as A, C, B, the second (other
    senses, another split) as B, C, A. A third transaction holds C uncommitted until both
    imports wait, then commits. Every import inserts its new rows in the order of their
    natural keys (``get_or_create_many``), so the second waits on the first (or the first
    on the second) and both succeed. Before, each inserted in file order: the first A, the
    second B, both waited on C, and once C was committed each waited on the other's setup:
    a deadlock, and PostgreSQL failed one of the imports."""
    _need_postgresql()
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # "bank"
    a, b, c = (f"{x} bank stood by the road." for x in ("A", "B", "C"))
    first, second = _setups(6, [a, c, b]), _setups(0, [b, c, a], OTHER_MEANINGS)
    bank = Homonym.objects.get(form="bank")
    precontext = first["6"]["precontext"]
    before = _counts()
    outcome = others_wait_then_commit(
        lambda: Setup.objects.create(homonym=bank, precontext=precontext, sentence=c),
        [_importing(first, "dev"), _importing(second, "train")],
    )
    assert [type(o) for o in outcome] == [Setup, ImportReport, ImportReport], outcome
    assert outcome[1].setups_created + outcome[2].setups_created == 2  # A and B, once each
    added = {name: n - before[name] for name, n in _counts().items()}
    assert (added["Setup"], added["Story"], added["Sense"], added["Sample"]) == (3, 9, 2, 36)
    dev = Sample.objects.in_split("ambistory", "dev").filter(position__gte=6)  # the file's
    for stored, data in ((dev, first), (Sample.objects.in_split("ambistory", "train"), second)):
        assert json.loads("".join(iter_ambistory_json(stored))) == data


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_setups_created_counts_only_the_imports_own_new_setups_when_another_commits_meanwhile():
    """The first import brings the new setup A; the second (other senses, another split)
    brings A and B, waits on the first's uncommitted A, and reads it once the first has
    committed. Each reports the one setup it inserted itself. Before, the report counted
    every setup stored after the import less those before it, so the second counted the
    first's A as its own too (2)."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")  # "bank"
    a, b = "A bank stood by the road.", "B bank stood by the road."
    outcome = _both_at_once(
        _setups(6, [a]), _setups(0, [a, b], OTHER_MEANINGS), splits=("dev", "train")
    )
    assert [type(o) for o in outcome] == [ImportReport, ImportReport], outcome
    assert [o.setups_created for o in outcome] == [1, 1]
    assert Setup.objects.filter(sentence__in=[a, b]).count() == 2


def _texts_stored(data: dict) -> None:
    """The homonyms, senses, setups and stories of ``data`` stored, no sample of them (as a
    deleted split leaves them, or a writing study's stories and senses)."""
    for s in parse_ambistory(data):
        homonym, _ = Homonym.objects.get_or_create(form=s.homonym)
        Sense.objects.get_or_create(
            homonym=homonym, gloss=s.judged_meaning, example_sentence=s.example_sentence
        )
        setup, _ = Setup.objects.get_or_create(
            homonym=homonym, precontext=s.precontext, sentence=s.sentence
        )
        Story.objects.get_or_create(setup=setup, ending=s.ending)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_stored_stories_imported_into_two_splits_at_once_are_refused_in_the_second_by_name():
    """Both files bring the same stored stories and senses (the second in the opposite
    order) into two splits; nothing of them is new, so no insert of a shared row orders the
    imports. The second locks the stories (``stories_locked``, in id order) before it
    looks for their samples, so it waits for the first's commit and is then refused as a
    sample of the other split (``_check_same_texts``), nothing of it written. Before, neither saw
    the other's uncommitted samples and the second failed on ``unique_story_sense`` (an
    IntegrityError)."""
    _need_postgresql()
    Dataset.objects.create(name="ambistory", title="AmbiStory")  # a new one orders them
    data = ambistory_setup(0)
    _texts_stored(data)
    before = _counts()
    outcome = _both_at_once(data, dict(reversed(data.items())), ("train", "test"))
    assert [type(o) for o in outcome] == [ImportReport, AmbiStoryFormatError], outcome
    sid = outcome[1].sample
    assert (
        str(outcome[1])
        == f"sample {sid}: already exists in split ambistory/train (as sample {sid})"
    )
    added = {name: n - before[name] for name, n in _counts().items()}
    assert added == {**dict.fromkeys(added, 0), "Sample": 6, "Rating": 30, "Rater": 5, "Split": 1}
    train = Sample.objects.in_split("ambistory", "train")
    assert json.loads("".join(iter_ambistory_json(train))) == data
    assert not Split.objects.filter(name="test").exists()
