from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from ambisite.health import healthz
from ambisite.passwords import LoginForm
from ambisite.views import favicon
from studies.urls import participant_patterns
from writing.urls import writer_patterns

urlpatterns = [
    # answered by ambisite.middleware.HealthCheckMiddleware first (any Host, plain HTTP)
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(authentication_form=LoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/", include("ambisite.api_urls")),
    path("api/", include("ambisite.site_urls")),
    path("studies/", include("studies.urls")),
    path("s/", include(participant_patterns)),
    path("s/", include(writer_patterns)),
    path("writing/", include("writing.urls")),
    path("dashboards/", include("dashboards.urls")),
    path("wug/", include("wug.urls")),
    path("prompts/", include("predictions.web.prompt_urls")),
    path("runs/", include("predictions.urls")),
    path("", include("annotations.urls")),
]

handler400 = "ambisite.errors.bad_request"
handler500 = "ambisite.errors.server_error"
