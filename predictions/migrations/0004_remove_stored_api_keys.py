"""Runs no longer take an ``api_key`` parameter (issue 11: keys are never stored in params);
a key that an older run stored is removed from its params. The run keeps every other
parameter, so what it was remains on record; retrying it is refused until it names an
endpoint (docs/llm-backends.md)."""

from django.db import migrations


def remove_api_keys(apps, schema_editor):
    ModelRun = apps.get_model("predictions", "ModelRun")
    for run in ModelRun.objects.only("pk", "params").iterator():
        params = run.params if isinstance(run.params, dict) else {}
        if "api_key" in params:
            params = {k: v for k, v in params.items() if k != "api_key"}
            ModelRun.objects.filter(pk=run.pk).update(params=params)


class Migration(migrations.Migration):
    dependencies = [("predictions", "0003_trainedmodel_biencoder")]

    operations = [migrations.RunPython(remove_api_keys, migrations.RunPython.noop, elidable=True)]
