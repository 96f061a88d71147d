"""Hooks for the apps above annotations, which it never imports (imports point down).

:data:`bulk_data_changed` says that a bulk write of rated data has committed: an import
(AmbiStory, RAW-C, sense choice, a predictions file) or a study opened. It carries no domain
logic: the dashboards connect to it (``DashboardsConfig.ready``) to precompute their default
pages in the Celery worker, so that a researcher's first visit finds them cached.
:data:`reference_texts_changed` says, inside the edit's transaction, which samples show
another reference text: model runs drop their unfinished runs' predictions of them
(``PredictionsConfig.ready``).
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

# sent with ``kind`` (the task kind written), once per bulk write, after its commit
bulk_data_changed = Signal()

# sent with ``sample_ids`` inside the transaction of a reference text edit
# (``annotations.reference.reference_texts_edit``): those samples show another text now, and
# work done on the old one must not pass for work on the new. A receiver's error rolls the
# edit back.
reference_texts_changed = Signal()


def bulk_change_announce(*, kind: str) -> None:
    """Send :data:`bulk_data_changed` once the current transaction commits (at once outside
    one; never when it rolls back). Call it once per bulk write, never per row. A receiver's
    failure is logged, never raised: the write has committed."""
    transaction.on_commit(
        lambda: bulk_data_changed.send_robust(sender=None, kind=kind), robust=True
    )
