"""Static file storage for production (``STORAGES["staticfiles"]`` when STATIC_MANIFEST)."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


def _without_source_maps(patterns):
    def keep(pattern) -> bool:
        regex = pattern if isinstance(pattern, str) else pattern[0]
        return "sourceMappingURL" not in regex

    return tuple((ext, tuple(filter(keep, found))) for ext, found in patterns)


class StaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage (hashed names, gzip copies, a manifest) that leaves
    ``sourceMappingURL`` comments as they are. Vendored minified libraries (Chart.js) name
    source maps that are not shipped, and rewriting those references would stop
    ``collectstatic`` with a missing-file error; a map is only ever fetched by developer
    tools, which then get a 404."""

    patterns = _without_source_maps(CompressedManifestStaticFilesStorage.patterns)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._urls: dict[tuple[str, bool], str] = {}

    def url(self, name, force=False):
        """The hashed URL of ``name``, worked out once per process: the manifest does not
        change while a server runs (a deploy restarts it), and every page links the same
        few files (``{% static %}`` was a tenth of a rating page's rendering)."""
        key = (name, force)
        found = self._urls.get(key)
        if found is None:
            found = self._urls[key] = super().url(name, force)
        return found
