from rest_framework.routers import SimpleRouter

from .views import StudyViewSet

router = SimpleRouter()
router.register("studies", StudyViewSet, basename="study")

urlpatterns = router.urls
