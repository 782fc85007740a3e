// tracebook's offline search box. The index (search-index.js) is a script that sets
// window.TRACEBOOK_SEARCH, so it loads from file:// too; it is fetched when the reader first
// focuses the box (or presses /), so pages do not carry it until then. Without JavaScript the
// box stays hidden and the home page's list of articles is the way in.
(function () {
  "use strict";
  var form = document.querySelector("form.tb-search");
  if (!form) { return; }
  var root = form.getAttribute("data-root") || "";
  var input = form.querySelector("input");
  var list = form.querySelector(".tb-search-results");
  var shown = [];
  var pages = null, loading = false;

  function fold(text) {
    return text.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  }

  // The index, loaded once; `then` runs when it is there.
  function load(then) {
    if (pages) { then(); return; }
    if (loading) { return; }
    loading = true;
    var script = document.createElement("script");
    script.src = root + "search-index.js";
    script.onload = function () {
      var index = window.TRACEBOOK_SEARCH || { pages: [] };
      pages = index.pages.map(function (page) {
        return {
          page: page,
          title: fold(page.title),
          text: fold(page.text),
          headings: page.headings.map(function (h) { return [h[0], fold(h[1])]; }),
          figures: (page.figures || []).map(function (f) { return [f[0], fold(f[1]), f[1]]; })
        };
      });
      then();
    };
    document.head.appendChild(script);
  }

  // Every word must appear in the title, a heading, the text or a figure (its caption or a
  // token it draws); titles weigh most. A word found only in a figure links to the figure.
  function search(query) {
    var words = fold(query).split(/\s+/).filter(Boolean);
    var found = [];
    if (!words.length) { return found; }
    pages.forEach(function (p) {
      var score = 0, anchor = "", at = -1, figure = null;
      for (var i = 0; i < words.length; i++) {
        var word = words[i], s = 0;
        if (p.title.indexOf(word) >= 0) { s += 10; }
        for (var h = 0; h < p.headings.length; h++) {
          if (p.headings[h][1].indexOf(word) >= 0) {
            s += 5;
            if (!anchor) { anchor = p.headings[h][0]; }
            break;
          }
        }
        var t = p.text.indexOf(word);
        if (t >= 0) { s += 1; if (at < 0) { at = t; } }
        for (var f = 0; f < p.figures.length && !s; f++) {
          var in_figure = p.figures[f][1].indexOf(word);
          if (in_figure >= 0) {
            s += 1;
            if (!figure) { figure = { fig: p.figures[f], at: in_figure }; }
          }
        }
        if (!s) { return; }
        score += s;
      }
      if (!anchor && at < 0 && figure) { anchor = figure.fig[0]; }
      found.push({ page: p.page, score: score, anchor: anchor, at: at, figure: figure });
    });
    found.sort(function (a, b) { return b.score - a.score; });
    return found.slice(0, 8);
  }

  function snippet(result) {
    if (result.at < 0 && result.figure) {
      var raw = result.figure.fig[2], from = Math.max(0, result.figure.at - 40);
      return "In a figure: " + (from ? "\u2026" : "") + raw.slice(from, result.figure.at + 60) + "\u2026";
    }
    if (result.at < 0) { return ""; }
    var text = result.page.text, start = Math.max(0, result.at - 50);
    return (start ? "\u2026" : "") + text.slice(start, result.at + 90) + "\u2026";
  }

  function render() {
    if (!pages) { return; }
    var query = input.value.trim();
    shown = search(query);
    list.textContent = "";
    list.hidden = !query;
    if (query && !shown.length) {
      var none = document.createElement("li");
      none.textContent = "No article matches \u201c" + query + "\u201d.";
      list.appendChild(none);
    }
    shown.forEach(function (result) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + result.page.url + (result.anchor ? "#" + result.anchor : "");
      var title = document.createElement("strong");
      title.textContent = result.page.title;
      link.appendChild(title);
      var text = snippet(result);
      if (text) {
        var span = document.createElement("span");
        span.textContent = text;
        link.appendChild(span);
      }
      item.appendChild(link);
      list.appendChild(item);
    });
  }

  form.hidden = false;
  input.addEventListener("focus", function () { load(render); });
  input.addEventListener("input", function () { load(render); });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (shown.length) { list.querySelector("a").click(); }
  });
  // "/" searches from anywhere but a control that takes text (a slider, a picker or a
  // button does not), where it is a character.
  function takesText(e) {
    if (!e) { return false; }
    if (e.isContentEditable || e.tagName === "TEXTAREA") { return true; }
    if (e.tagName !== "INPUT") { return false; }
    return !/^(range|checkbox|radio|button|submit|reset|color|file|image)$/.test(e.type);
  }
  document.addEventListener("keydown", function (event) {
    var typing = takesText(document.activeElement);
    if (event.key === "/" && !typing) { event.preventDefault(); input.focus(); }
    if (event.key === "Escape" && document.activeElement === input) { input.value = ""; render(); }
  });
})();
