// New-study form: fill the slug from the title until the researcher edits the slug.
(function () {
  "use strict";
  function slugify(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64).replace(/-+$/, "");
  }
  document.querySelectorAll("input[data-slug-from]").forEach(function (slug) {
    var source = document.getElementById(slug.getAttribute("data-slug-from"));
    if (!source) return;
    var touched = slug.value !== "" && slug.value !== slugify(source.value);
    slug.addEventListener("input", function () { touched = slug.value !== ""; });
    source.addEventListener("input", function () {
      if (!touched) slug.value = slugify(source.value);
    });
  });
})();
