// Leaderboard: bootstrap intervals per run, the label distribution and the model-vs-human scatter.
(function () {
  "use strict";
  const COLORS = ["#2f5bd3", "#e08a1e", "#7d4cc2", "#c0392b", "#0f766e", "#6b7280"];
  const fmt = (ci) => (ci ? `${ci[0].toFixed(3)} … ${ci[1].toFixed(3)}` : "—");
  const get = (url) => fetch(url, { credentials: "same-origin" }).then((r) => r.json());

  const table = document.getElementById("leaderboard");
  if (table) {
    get(table.dataset.url).then((data) => {
      for (const [run, ci] of Object.entries(data.runs)) {
        const row = table.querySelector(`tr[data-run="${run}"]`);
        if (!row) continue;
        row.querySelector(".ci-accuracy").textContent = fmt(ci.accuracy);
        row.querySelector(".ci-spearman").textContent = fmt(ci.spearman);
        const fewer = ci.replicates < data.n_boot ? ` (${ci.replicates} replicates)` : "";
        row.querySelector(".ci-spearman").textContent += fewer;
        for (const cell of row.querySelectorAll(".ci-accuracy, .ci-spearman")) {
          cell.title = `${ci.replicates} bootstrap replicates over setups`;
        }
      }
      const note = document.getElementById("leaderboard-boot");
      if (note) note.textContent = `Intervals: ${data.n_boot} bootstrap replicates over setups ` +
        "(fewer on very large runs, as marked).";
    });
  }

  const labels = document.getElementById("chart-labels");
  if (labels) {
    get(labels.dataset.url).then((data) => new Chart(labels, {
      type: "bar",
      data: { labels: data.labels, datasets: data.series.map((s, i) => ({
        label: s.name, data: s.values,
        backgroundColor: s.name === "humans" ? "#1e8e5a" : COLORS[i % COLORS.length] })) },
      options: { responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { title: { display: true, text: data.title } },
        scales: { y: { beginAtZero: true, title: { display: true, text: "%" } } } },
    }));
  }

  const scatter = document.getElementById("chart-scatter");
  if (scatter) {
    get(scatter.dataset.url).then((data) => {
      const line = (d) => [{ x: 1, y: 1 + d }, { x: 5, y: 5 + d }];
      const guide = (d, dash) => ({ type: "line", label: d ? `mean ${d > 0 ? "+" : "−"} 1` : "prediction = mean",
        data: line(d), borderColor: "#9aa3b5", borderDash: dash, pointRadius: 0, borderWidth: 1 });
      new Chart(scatter, {
        type: "scatter",
        data: { datasets: [
          { label: "inside the band", data: data.points.filter((p) => p.inside), backgroundColor: "#1e8e5a", pointRadius: 3 },
          { label: "outside the band", data: data.points.filter((p) => !p.inside), backgroundColor: "#c0392b", pointRadius: 3 },
          guide(0, []), guide(1, [5, 4]), guide(-1, [5, 4]),
        ] },
        options: { responsive: true, maintainAspectRatio: false, animation: false,
          plugins: { title: { display: true, text: `${data.title}: ${data.run ? data.run.name : ""}` } },
          scales: { x: { min: 1, max: 5, title: { display: true, text: "human mean" } },
                    y: { min: 0.5, max: 5.5, title: { display: true, text: "prediction" } } } },
      });
    });
  }
})();
