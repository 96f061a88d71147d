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

// The adaptive settings in plain words: asked from the server (the rule the allocation
// uses) whenever one of them changes.
(function () {
  "use strict";
  var box = document.getElementById("adaptive-outlook");
  var list = document.getElementById("outlook-lines");
  if (!box || !list || !window.fetch) return;
  var names = ["ratings_per_sample", "max_ratings_per_sample", "target_width", "rating_budget", "split"];
  var timer = null;
  function value(name) {
    var field = document.getElementById("id_" + name);
    return field ? field.value : "";
  }
  function refresh() {
    var params = new URLSearchParams();
    names.forEach(function (name) { params.set(name, value(name)); });
    if (box.dataset.study) params.set("study", box.dataset.study);
    fetch(box.dataset.url + "?" + params.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var lines = data.sentences || [data.error];
        list.replaceChildren.apply(list, lines.map(function (line) {
          var li = document.createElement("li");
          li.textContent = line;
          return li;
        }));
      })
      .catch(function () {});
  }
  names.forEach(function (name) {
    var field = document.getElementById("id_" + name);
    if (!field) return;
    field.addEventListener("input", function () { window.clearTimeout(timer); timer = window.setTimeout(refresh, 300); });
    field.addEventListener("change", refresh);
  });
})();
