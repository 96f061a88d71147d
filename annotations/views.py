from django.core.paginator import Paginator
from django.shortcuts import render

from ambisite.access import researcher_required

from .selectors import samples_for_setups, setups_in_order


@researcher_required
def setup_list(request):
    paginator = Paginator(setups_in_order(), 20)
    page = paginator.get_page(request.GET.get("page"))
    rows = samples_for_setups(list(page.object_list))
    setups = [(setup, rows.get(setup.id, [])) for setup in page.object_list]
    return render(
        request,
        "annotations/setup_list.html",
        {"page": page, "setups": setups, "total": paginator.count},
    )
