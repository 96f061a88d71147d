"""Read-only representations of the annotation data (plain output, no logic)."""

from __future__ import annotations

from rest_framework import serializers

from annotations.models import Dataset, Rating, Sample, Setup, Split


class SplitSerializer(serializers.ModelSerializer):
    dataset: serializers.SlugRelatedField[Dataset] = serializers.SlugRelatedField(
        slug_field="name", read_only=True
    )
    n_samples = serializers.IntegerField(read_only=True, help_text="Samples in the split.")

    class Meta:
        model = Split
        fields = ["id", "dataset", "name", "n_samples"]


class DatasetSerializer(serializers.ModelSerializer):
    splits = SplitSerializer(many=True, read_only=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "title", "task_kind", "source", "licence", "splits"]


class SetupSerializer(serializers.ModelSerializer):
    homonym = serializers.CharField(source="homonym.form", read_only=True)
    endings = serializers.SerializerMethodField(help_text='The stories\' endings; "" = none.')

    class Meta:
        model = Setup
        fields = ["id", "homonym", "precontext", "sentence", "endings"]

    def get_endings(self, setup: Setup) -> list[str]:
        return [story.ending for story in setup.stories.all()]


class SampleSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="split.dataset.name", read_only=True)
    task_kind = serializers.CharField(source="split.dataset.task_kind", read_only=True)
    split_name = serializers.CharField(source="split.name", read_only=True)
    setup = serializers.IntegerField(source="story.setup_id", read_only=True)
    homonym = serializers.CharField(source="story.setup.homonym.form", read_only=True)
    judged_meaning = serializers.CharField(source="sense.gloss", read_only=True, allow_null=True)
    example_sentence = serializers.CharField(
        source="sense.example_sentence", read_only=True, allow_null=True
    )
    precontext = serializers.CharField(source="story.setup.precontext", read_only=True)
    sentence = serializers.CharField(source="story.setup.sentence", read_only=True)
    ending = serializers.CharField(source="story.ending", read_only=True)
    n_ratings = serializers.IntegerField(read_only=True, help_text="Valid ratings.")
    mean = serializers.FloatField(read_only=True, allow_null=True)
    sd = serializers.FloatField(
        read_only=True,
        allow_null=True,
        help_text="Sample SD of the valid ratings as the official scorer computes it "
        "(statistics.stdev); null below two ratings.",
    )
    n_nonsensical = serializers.IntegerField(read_only=True)

    class Meta:
        model = Sample
        fields = [
            "id", "dataset", "task_kind", "split", "split_name", "dataset_id", "sample_id",
            "position", "item_set", "setup", "homonym", "judged_meaning", "example_sentence",
            "precontext", "sentence", "ending", "n_ratings", "mean", "sd", "n_nonsensical",
        ]  # fmt: skip


class RatingSerializer(serializers.ModelSerializer):
    """One rating in long format; raters appear only by pseudonym, never by Prolific id."""

    dataset = serializers.CharField(source="sample.split.dataset.name", read_only=True)
    split = serializers.CharField(source="sample.split.name", read_only=True)
    dataset_id = serializers.CharField(source="sample.dataset_id", read_only=True)
    rater = serializers.CharField(source="rater.pseudonym", read_only=True)
    rater_kind = serializers.CharField(source="rater.kind", read_only=True)
    rater_excluded = serializers.BooleanField(read_only=True)

    class Meta:
        model = Rating
        fields = [
            "id", "dataset", "split", "sample", "dataset_id", "rater", "rater_kind",
            "rater_excluded", "kind", "score", "nonsensical", "comment", "sentence_order",
            "position", "started_at", "created_at", "setup_version", "story_version",
            "sense_version",
        ]  # fmt: skip
