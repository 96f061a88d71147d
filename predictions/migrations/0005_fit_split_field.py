"""``fit_split`` becomes a field of runs and training jobs (issue 13), no longer a key of their
``params``: a stored ``params["fit_split"]`` (one name, ``"train,dev"`` or a list) moves into
the field as ``"train,dev"`` and leaves ``params``, so that ``params`` are the backend's own
parameters only. Reversed, the value goes back into ``params``."""

from django.db import migrations, models


def names(value) -> list[str]:
    """As ``predictions.rows.split_names`` reads it (copied: a migration keeps its own)."""
    parts = value.split(",") if isinstance(value, str) else list(value or [])
    out: list[str] = []
    for part in parts:
        name = str(part).strip()
        if name and name not in out:
            out.append(name)
    return out


def params_to_field(apps, schema_editor):
    for model in ("ModelRun", "TrainedModel"):
        rows = apps.get_model("predictions", model).objects
        for row in rows.filter(params__has_key="fit_split").only("pk", "params").iterator():
            params = dict(row.params)
            value = ",".join(names(params.pop("fit_split")))
            rows.filter(pk=row.pk).update(params=params, fit_split=value)


def field_to_params(apps, schema_editor):
    for model in ("ModelRun", "TrainedModel"):
        rows = apps.get_model("predictions", model).objects
        for row in rows.exclude(fit_split="").only("pk", "params", "fit_split").iterator():
            params = {
                **(row.params if isinstance(row.params, dict) else {}),
                "fit_split": row.fit_split,
            }
            rows.filter(pk=row.pk).update(params=params, fit_split="")


class Migration(migrations.Migration):
    dependencies = [("predictions", "0004_remove_stored_api_keys")]

    operations = [
        migrations.AddField(
            model_name="modelrun",
            name="fit_split",
            field=models.CharField(
                blank=True,
                help_text='Splits of the same dataset the backend fits on, in order ("train" or '
                '"train,dev"); never the split it scores. Empty: it fits on nothing.',
                max_length=200,
            ),
        ),
        migrations.AddField(
            model_name="trainedmodel",
            name="fit_split",
            field=models.CharField(
                blank=True,
                help_text='Every split it trains on, in order, ``split`` among them ("train,dev"). '
                "Empty: ``split`` alone.",
                max_length=200,
            ),
        ),
        migrations.RunPython(params_to_field, field_to_params),
    ]
