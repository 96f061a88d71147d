"""Reading a whole number from the environment: the one rule of the Django settings and of
the gunicorn configuration file (which runs before Django, so this imports no Django)."""

from __future__ import annotations

import os
from collections.abc import Callable


def env_int(name: str, default: int, error: Callable[[str], BaseException] = ValueError) -> int:
    """``$name`` as an int, ``default`` when unset or blank; anything else stops the start
    with ``error("NAME='value' is not an integer")`` (the caller's kind of stop)."""
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise error(f"{name}={raw!r} is not an integer") from None
