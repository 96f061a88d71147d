// The researcher menu collapses behind a "Menu" button on phones (site.css). Loaded in <head>
// so the menu never paints open first; without JavaScript the menu simply stays shown.
(function () {
  "use strict";
  document.documentElement.classList.add("js-nav");

  function wire() {
    var toggle = document.getElementById("nav-toggle");
    var menu = document.getElementById("site-menu");
    if (!toggle || !menu) { return; }

    function show(open) {
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      menu.classList.toggle("open", open);
    }

    toggle.addEventListener("click", function () {
      show(toggle.getAttribute("aria-expanded") !== "true");
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") { return; }
      show(false);
      toggle.focus();
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wire);
  } else {
    wire();
  }
})();
