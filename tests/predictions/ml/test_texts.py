"""The one story-pairing rule (predictions/ml/texts.py), shared by features, post-processing,
fine-tuning, the embedding backend and batching."""

from predictions.ml.features import partner_index
from predictions.ml.texts import partners, story_groups, story_key
from tests.factories import ambistory_setup


def test_groups_keep_first_appearance_order_and_their_own_order():
    assert story_groups(["b", "a", "b", "c", "a"]) == [[0, 2], [1, 4], [3]]


def test_the_partner_is_the_other_sense_of_the_same_story():
    assert partners(["s1", "s2", "s1", "s3"]) == [2, None, 0, None]
    # with senses, a second sample of the same sense is no partner
    assert partners(["s", "s", "s"], ["x", "x", "y"]) == [2, 2, 0]


def test_every_sample_of_a_setup_has_its_stories_other_sense():
    samples = list(ambistory_setup(0).values())  # 3 stories x 2 senses
    found = partner_index(samples)
    for i, j in enumerate(found):
        assert j is not None and j != i
        assert story_key(samples[j]) == story_key(samples[i])
        assert samples[j]["judged_meaning"] != samples[i]["judged_meaning"]
        assert found[j] == i


def test_setup_sense_groups_names_for_each_sample_all_samples_of_its_setup_and_sense():
    from predictions.ml.features import setup_sense_groups

    def sample(sentence: str, ending: str, meaning: str) -> dict:
        return {
            "homonym": "bank",
            "precontext": "P.",
            "sentence": sentence,
            "ending": ending,
            "judged_meaning": meaning,
            "example_sentence": "",
        }

    samples = [
        sample("S.", "", "river"),
        sample("S.", "E1.", "river"),
        sample("S.", "E1.", "money"),
        sample("T.", "", "river"),
        sample("S.", "E2.", "river"),
    ]
    assert setup_sense_groups(samples) == [[0, 1, 4], [0, 1, 4], [2], [3], [0, 1, 4]]
