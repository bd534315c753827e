// The usage chart: tokens per day, with the daily budget as a line. The
// numbers come from the page's JSON data island and are in the table below.
(function () {
  "use strict";
  function draw() {
    var el = document.getElementById("usage-chart");
    var src = document.getElementById("usage-data");
    if (!el || !src || typeof uPlot === "undefined") return;
    var data = JSON.parse(src.textContent);
    var days = data.days || [];
    var xs = [], tokens = [], calls = [], limit = [];
    for (var i = 0; i < days.length; i++) {
      xs.push(Date.parse(days[i].day) / 1000);
      tokens.push(days[i].tokens);
      calls.push(days[i].calls);
      limit.push(data.daily_token_limit || null);
    }
    var series = [{}, { label: "tokens", stroke: "#2563eb", width: 2 }, { label: "calls", stroke: "#067647", scale: "calls" }];
    var columns = [xs, tokens, calls];
    if (data.daily_token_limit) {
      series.push({ label: "daily limit (per user)", stroke: "#b42318", dash: [6, 4] });
      columns.push(limit);
    }
    new uPlot({
      width: Math.max(280, el.clientWidth), height: 300, series: series,
      axes: [{}, { label: "tokens" }, { side: 1, scale: "calls", label: "calls", grid: { show: false } }],
    }, columns, el);
    el.setAttribute("data-drawn", String(days.length));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw); else draw();
})();
