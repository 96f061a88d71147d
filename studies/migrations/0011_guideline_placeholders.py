"""The default guidelines' fixed counts become placeholders filled from each study's
settings (``studies.study_texts``): a study of 5 samples no longer tells its participants
"Each annotator is assigned 30 samples". Only the default sentences are replaced; a
researcher's own wording is left as it is."""

from django.db import migrations

SENTENCES = [
    ("Each annotator is assigned 30 samples.", "Each annotator is assigned {items}."),
    (
        "You have to\nwrite five sentences to clear the task.",
        "You have to\nwrite {items} to clear the task.",
    ),
    (
        "You have to write five sentences to clear the task.",
        "You have to write {items} to clear the task.",
    ),
    ("Each writer is assigned around 20 stories.", "Each writer is assigned up to {items}."),
]


def forwards(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    for study in Study.objects.all().only("id", "guidelines").iterator():
        text = study.guidelines
        for old, new in SENTENCES:
            text = text.replace(old, new)
        if text != study.guidelines:
            Study.objects.filter(pk=study.pk).update(guidelines=text)


def backwards(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    for study in Study.objects.filter(guidelines__contains="{items}").iterator():
        counts = {"sentences": "five sentences", "endings": "around 20 stories"}
        text = study.guidelines.replace("assigned up to {items}", "assigned {items}")
        text = text.replace("{items}", counts.get(study.activity, "30 samples"))
        Study.objects.filter(pk=study.pk).update(guidelines=text)


class Migration(migrations.Migration):
    dependencies = [("studies", "0010_slot_outdated")]

    operations = [migrations.RunPython(forwards, backwards)]
