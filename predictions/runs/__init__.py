"""Model runs: create and enqueue them, the worker loop, claims, rows, training jobs, the
official scores of a run and derived runs."""
