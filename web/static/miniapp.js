// The Mini App: the user's own memory. Telegram hands the page its signed
// launch data in the address's fragment (tgWebAppData); every call sends
// it back, and the server checks Telegram's signature: the page itself
// says nothing of who the user is. Every text is set with textContent.
(function () {
  "use strict";
  var initData = new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") || "";
  var lang = "en";
  try { lang = (JSON.parse(new URLSearchParams(initData).get("user") || "{}").language_code || "en").slice(0, 2); } catch (e) {}
  var T = {
    en: { loading: "Loading…", open: "Open this page from the bot in Telegram.", none: "Nothing yet.",
      forget: "Forget", sure: "Forget it?", edit: "Correct", save: "Save", all: "Forget everything", allSure: "Forget every fact?",
      auto: "from what you said", tool: "saved when asked", found: "Nothing found.", failed: "That did not work: ",
      from: "From what you wrote on ", fromGone: "From a conversation you had the bot forget." },
    ru: { loading: "Загрузка…", open: "Откройте эту страницу из бота в Telegram.", none: "Пока ничего.",
      forget: "Забыть", sure: "Забыть это?", edit: "Исправить", save: "Сохранить", all: "Забыть всё", allSure: "Забыть все факты?",
      auto: "из ваших слов", tool: "сохранено по просьбе", found: "Ничего не найдено.", failed: "Не получилось: ",
      from: "Из того, что вы написали ", fromGone: "Из разговора, который бот забыл по вашей просьбе." }
  }[lang === "ru" ? "ru" : "en"];

  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) { var e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }
  function status(text) { $("status").textContent = text; $("status").hidden = !text; }

  function call(method, path, form) {
    var opts = { method: method, headers: { "Authorization": "tma " + initData, "Accept": "application/json" } };
    if (form) { opts.body = new URLSearchParams(form); }
    return fetch(path, opts).then(function (r) {
      return r.json().then(function (body) { if (!r.ok) throw new Error(body.error || r.status); return body; });
    });
  }

  function twoStep(button, label, sure, act) {
    button.textContent = label;
    button.addEventListener("click", function () {
      if (button.dataset.armed) { act(); return; }
      button.dataset.armed = "1"; button.textContent = sure;
    });
  }

  function fact(f) {
    var li = el("li", null, "fact"); li.id = "fact" + f.id;
    li.appendChild(el("div", f.content, "text"));
    li.appendChild(el("div", (f.origin === "auto" ? T.auto : T.tool) + " · " + (f.updated_at || "").slice(0, 10), "meta"));
    if (f.source) { li.appendChild(source(f.source)); }
    var forget = el("button", null, "danger");
    twoStep(forget, T.forget, T.sure, function () {
      call("POST", "/app/api/facts/" + f.id + "/forget").then(load, fail);
    });
    var edit = el("button", T.edit);
    edit.addEventListener("click", function () {
      var box = el("textarea"); box.value = f.content; box.maxLength = 500; box.rows = 2;
      var save = el("button", T.save);
      save.addEventListener("click", function () {
        call("POST", "/app/api/facts/" + f.id, { content: box.value }).then(load, fail);
      });
      li.appendChild(box); li.appendChild(save); edit.remove();
    });
    li.appendChild(forget); li.appendChild(document.createTextNode(" ")); li.appendChild(edit);
    return li;
  }

  // source is where a fact came from: the exchange's date and the user's
  // words (cut), unless that exchange was forgotten.
  function source(src) {
    if (src.forgotten) { return el("div", T.fromGone, "source"); }
    var words = src.content || "";
    if (words.length > 300) { words = words.slice(0, 300) + "…"; }
    return el("div", T.from + day(src.created_at) + ": «" + words + "»", "source");
  }

  // day is a time's date on the user's device.
  function day(at) {
    var d = new Date(at);
    if (isNaN(d)) { return ""; }
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate());
  }

  function fill(id, items, make) {
    var box = $(id); box.replaceChildren();
    if (!items || !items.length) { box.appendChild(el("li", T.none, "meta")); return; }
    items.forEach(function (x) { box.appendChild(make(x)); });
  }

  function load() {
    call("GET", "/app/api/me").then(function (m) {
      status("");
      $("mine").hidden = false;
      fill("facts", (m.facts || []).filter(function (f) { return !f.superseded_by; }), fact);
      fill("summaries", m.summaries, function (s) { return el("blockquote", s.content); });
      fill("reminders", m.reminders, function (r) { return el("li", (r.due_at || "").slice(0, 16).replace("T", " ") + " · " + r.text); });
    }, fail);
  }

  function fail(err) { status(T.failed + err.message); }

  document.addEventListener("DOMContentLoaded", function () {
    if (!initData) { status(T.open); return; }
    status(T.loading);
    twoStep($("forget-all"), T.all, T.allSure, function () { call("POST", "/app/api/forget").then(load, fail); });
    $("export").addEventListener("click", function () {
      call("GET", "/app/api/export").then(function (rows) {
        var a = el("a"); a.href = URL.createObjectURL(new Blob([JSON.stringify(rows, null, 2)], { type: "application/json" }));
        a.download = "membot-my-data.json"; document.body.appendChild(a); a.click(); a.remove();
      }, fail);
    });
    $("search").addEventListener("submit", function (e) {
      e.preventDefault();
      var q = e.target.elements.q.value;
      call("GET", "/app/api/search?q=" + encodeURIComponent(q)).then(function (hits) {
        var box = $("hits"); box.replaceChildren();
        if (!hits.length) { box.appendChild(el("li", T.found, "meta")); return; }
        hits.forEach(function (h) { box.appendChild(el("li", (h.WrittenAt || "").slice(0, 10) + " · " + h.Text)); });
      }, fail);
    });
    load();
  });
})();
