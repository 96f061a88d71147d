// A word's usage graph (cytoscape) and its cluster frequencies per grouping (Chart.js).
(function () {
  "use strict";
  const PALETTE = ["#2f5bd3", "#d97706", "#16a34a", "#9333ea", "#dc2626", "#0891b2",
    "#ca8a04", "#db2777", "#4b5563", "#65a30d"];
  const colour = (c) => (c === null || c === undefined ? "#c4c8d2" : PALETTE[c % PALETTE.length]);

  function showUse(node) {
    const box = document.getElementById("wug-use");
    const d = node.data();
    box.replaceChildren();
    const head = document.createElement("small");
    head.className = "muted";
    head.textContent = `${d.id} · cluster ${d.cluster === null ? "none" : d.cluster} · grouping ${d.grouping || "–"}: `;
    const mark = document.createElement("mark");
    mark.className = "wug-target";
    mark.textContent = d.target;
    box.append(head, document.createTextNode("…" + d.left), mark, document.createTextNode(d.right + "…"));
  }

  function drawGraph(el) {
    fetch(el.dataset.url, { credentials: "same-origin" })
      .then((r) => r.json())
      .then((data) => {
        const elements = data.nodes.map((n) => ({ data: n }))
          .concat(data.edges.map((e, i) => ({ data: { id: "e" + i, ...e } })));
        const cy = cytoscape({
          container: el,
          elements,
          layout: { name: "cose", randomize: false, animate: false, nodeRepulsion: 8000 },
          style: [
            { selector: "node", style: { "background-color": (n) => colour(n.data("cluster")), width: 12, height: 12 } },
            { selector: "edge", style: {
              "line-color": (e) => (e.data("weight") > 2.5 ? "#16a34a" : "#dc2626"),
              width: (e) => 0.5 + Math.abs(e.data("weight") - 2.5),
              opacity: (e) => (e.data("weight") > 2.5 ? 0.6 : 0.25) } },
            { selector: "node:selected", style: { "border-width": 3, "border-color": "#111" } },
          ],
        });
        cy.on("tap", "node", (evt) => showUse(evt.target));
        el.dataset.ready = String(cy.nodes().length);
      });
  }

  function drawFrequencies(canvas) {
    const data = JSON.parse(document.getElementById("wug-frequency-data").textContent);
    new Chart(canvas, {
      type: "bar",
      data: { labels: data.labels, datasets: data.series.map((s, i) => ({
        label: s.name, data: s.values, backgroundColor: PALETTE[i % PALETTE.length] })) },
      options: { responsive: true, animation: false,
        scales: { x: { title: { display: true, text: "cluster" } }, y: { title: { display: true, text: "uses" }, beginAtZero: true } } },
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const el = document.getElementById("wug-graph");
    if (el && window.cytoscape) drawGraph(el);
    const canvas = document.getElementById("wug-frequencies");
    if (canvas && window.Chart) drawFrequencies(canvas);
  });
})();
