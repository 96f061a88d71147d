"""The REST API, mounted at /api/v1/: one include per app, plus the schema and its UI."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ambisite.api import IsResearcher, not_found

urlpatterns = [
    path("", include("annotations.api.urls")),
    path("", include("studies.api.urls")),
    path("", include("predictions.api.urls")),
    path("", include("wug.api.urls")),
    # Researchers only, like the rest: the Swagger UI reads the schema with the session.
    path(
        "schema/", SpectacularAPIView.as_view(permission_classes=[IsResearcher]), name="api-schema"
    ),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", permission_classes=[IsResearcher]
        ),
        name="api-docs",
    ),
    # Anything else under /api/v1/ answers JSON, not the site's HTML 404 page.
    re_path(r"^", not_found),
]
