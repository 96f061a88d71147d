// A page sent in answer to a form's POST (the consent answered with the qualification test,
// the test's answers with the first item): the address bar shows the page's own address (its
// canonical link) instead of the POST's, so that a reload or Back loads it with a GET and
// does not send the form again.
(function () {
  "use strict";
  var link = document.querySelector('link[rel="canonical"]');
  if (link && window.history && history.replaceState && link.href !== window.location.href) {
    history.replaceState(null, "", link.href);
  }
})();
