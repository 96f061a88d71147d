// Agreement page: fill in the bootstrap intervals and draw the two charts from their JSON.
(function () {
  "use strict";
  const COLORS = ["#2f5bd3", "#e08a1e", "#1e8e5a", "#c0392b", "#7d4cc2", "#6b7280"];
  const fmt = (v) => (v === null || v === undefined ? "—" : v.toFixed(3));

  function bar(canvas, data, stacked, axes) {
    ChartTable.fromSeries(canvas, data, data.scale_name || axes.x);
    axes = { ...axes, x: data.axis || axes.x }; // the kind's own scale, e.g. relatedness (0-4)
    return new Chart(canvas, {
      type: "bar",
      data: {
        labels: data.labels,
        datasets: data.series.map((s, i) => ({ label: s.name, data: s.values, backgroundColor: COLORS[i % COLORS.length] })),
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { title: { display: true, text: data.title } },
        scales: { x: { stacked: stacked, title: { display: true, text: axes.x } },
                  y: { stacked: stacked, beginAtZero: true, title: { display: true, text: axes.y } } } },
    });
  }

  function load(id, stacked, axes) {
    const canvas = document.getElementById(id);
    if (!canvas) return;
    fetch(canvas.dataset.url, { credentials: "same-origin" })
      .then((r) => r.json()).then((data) => bar(canvas, data, stacked, axes));
  }

  function intervals() {
    const table = document.getElementById("agreement-figures");
    if (!table) return;
    fetch(table.dataset.url, { credentials: "same-origin" }).then((r) => r.json()).then((data) => {
      for (const m of data.metrics) {
        const cell = table.querySelector(`tr[data-key="${m.key}"] .interval`);
        if (!cell) continue;
        const reps = m.replicates || { defined: 0, drawn: 0 };
        // an interval over fewer replicates than drawn says so
        const count = reps.defined < reps.drawn ? ` (${reps.defined} of ${reps.drawn} replicates defined)` : "";
        const known = m.interval && m.interval[0] !== null && m.interval[1] !== null;
        cell.textContent = (known ? `${fmt(m.interval[0])} … ${fmt(m.interval[1])}` : "—") + count;
      }
      document.getElementById("boot-note").textContent =
        `${data.n_boot} bootstrap replicates over ${data.n_setups} setups (seed ${data.seed}); ` +
        `the per-annotator figures use the first ${data.n_boot_annotators} of them; ` +
        `split-half gives replicate k the k-th of its ${data.split_half.splits} random splits, in turn.`;
    });
  }

  intervals();
  load("chart-histogram", true, { x: "score", y: "ratings" });
  load("chart-homonym-sd", false, { x: "homonym", y: "mean SD of a sample's ratings" });
})();
