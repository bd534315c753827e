// The usage charts, drawn from the page's JSON data island (every number
// is also in the table under its chart): tokens and calls per day; each
// user's tokens today against the daily limit; each model's tokens.
(function () {
  "use strict";
  var blue = "#2563eb", green = "#067647", red = "#b42318";

  function width(el) { return Math.max(280, el.clientWidth); }

  // bars draws one bar per label, with an optional limit line.
  function bars(el, labels, values, name, limit) {
    if (!el || !labels.length) return;
    var xs = labels.map(function (_, i) { return i; });
    var series = [{}, { label: name, stroke: blue, fill: "rgba(37,99,235,0.35)", paths: uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } }];
    var top = Math.max(limit, Math.max.apply(null, values)) * 1.1 || 1;
    // The limit is a line across the whole plot, drawn over the bars.
    var hooks = !limit ? {} : { draw: [function (u) {
      var y = u.valToPos(limit, "y", true), c = u.ctx;
      c.save(); c.strokeStyle = red; c.lineWidth = 2; c.setLineDash([6, 4]);
      c.beginPath(); c.moveTo(u.bbox.left, y); c.lineTo(u.bbox.left + u.bbox.width, y); c.stroke();
      c.fillStyle = red; c.textAlign = "right"; c.font = Math.round(12 * uPlot.pxRatio) + "px sans-serif";
      c.fillText("daily limit " + limit, u.bbox.left + u.bbox.width - 4, y - 4 * uPlot.pxRatio); c.restore();
    }] };
    new uPlot({
      width: width(el), height: 260, series: series, hooks: hooks,
      scales: { x: { time: false, range: [-0.5, labels.length - 0.5] }, y: { range: [0, top] } },
      axes: [{ splits: function () { return xs; }, values: function (_, splits) { return splits.map(function (i) { return (labels[i] || "").slice(0, 14); }); } }, { label: name }],
    }, [xs, values], el);
    el.setAttribute("data-drawn", String(labels.length));
  }

  function draw() {
    var src = document.getElementById("usage-data");
    if (!src || typeof uPlot === "undefined") return;
    var data = JSON.parse(src.textContent);
    var limit = data.daily_token_limit || 0;

    var el = document.getElementById("usage-chart");
    var days = data.days || [];
    if (el) {
      var xs = days.map(function (d) { return Date.parse(d.day) / 1000; });
      new uPlot({
        width: width(el), height: 300,
        series: [{}, { label: "tokens", stroke: blue, width: 2 }, { label: "calls", stroke: green, scale: "calls" }],
        axes: [{}, { label: "tokens" }, { side: 1, scale: "calls", label: "calls", grid: { show: false } }],
      }, [xs, days.map(function (d) { return d.tokens; }), days.map(function (d) { return d.calls; })], el);
      el.setAttribute("data-drawn", String(days.length));
    }

    var today = data.today || [];
    bars(document.getElementById("today-chart"),
      today.map(function (u) { return u.username ? "@" + u.username : (u.first_name || String(u.user_id)); }),
      today.map(function (u) { return u.tokens; }), "tokens today", limit);

    var models = data.models || [];
    bars(document.getElementById("model-chart"),
      models.map(function (m) { return m.model + " (" + m.purpose + ")"; }),
      models.map(function (m) { return m.tokens; }), "tokens", 0);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw); else draw();
})();
