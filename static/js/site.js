// The researcher pages' chrome (loaded in <head> for staff, so the menu never paints open first):
// - on phones the menu collapses behind a "Menu" button (site.css); without JavaScript it stays shown;
// - a table box or <pre> that scrolls sideways becomes keyboard-focusable, so arrow keys scroll it
//   (WCAG 2.1.1; axe's scrollable-region-focusable), and stops being a tab stop when it fits again.
(function () {
  "use strict";
  document.documentElement.classList.add("js-nav");

  function wireMenu() {
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

  function markScroller(box) {
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.dataset.scrollFocus = "1";
    } else if (!scrolls && box.dataset.scrollFocus) {
      box.removeAttribute("tabindex");
      delete box.dataset.scrollFocus;
    }
  }

  function wireScrollers() {
    var boxes = document.querySelectorAll(".table-scroll, main pre");
    if (!boxes.length) { return; }
    var all = function () { boxes.forEach(markScroller); };
    all();
    if (window.ResizeObserver) {  // tables filled later from JSON grow after load
      var observer = new ResizeObserver(all);
      boxes.forEach(function (box) {
        observer.observe(box);
        if (box.firstElementChild) { observer.observe(box.firstElementChild); }
      });
    } else {
      window.addEventListener("resize", all);
    }
  }

  function wire() {
    wireMenu();
    wireScrollers();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wire);
  } else {
    wire();
  }
})();
