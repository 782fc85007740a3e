// tracebook.js: progressive enhancement for tracebook pages, which are complete without it.
// 1. Figures that embed their numbers (<script type="application/json" class="tb-live">) get
//    controls (temperature, top-k, top-p) and are redrawn from those numbers; the arithmetic
//    mirrors the figures crate (src/live.rs, src/sampler.rs, format::percent).
// 2. Hovering or focusing a token (data-tb-tok="prompt:position") highlights it in every
//    figure of the page: its boxes and labels, and its row and column in attention maps.
// 3. Figures with build-time panels (data-tb-panel) get pickers that show one at a time,
//    and the generation figure a step slider. Once a control moves, the caption says what
//    is shown now beside what its words describe.
// 4. A figure wider than its column (a phone) scrolls sideways, as figures are never shrunk
//    below 1:1: data-tb-scroll on the figure says so, and which way there is more to see.
// 5. [live]: "Try your own prompt" shows, its first click loads tracebook-live.js, and a
//    figure redrawn for the reader's prompt (a `tb:redrawn` event) gets its controls again.
// 6. In a `tracebook figure` HTML fragment (this script marked data-tb-fragment, right after
//    its <tracebook-figure>), all of the above for that figure's shadow root only; marked
//    data-tb-fragment="all" (once in an mdBook chapter), for each fragment above it.
// Changes are announced through a polite live region per figure. No network, no globals
// (a page's one: tracebookPanels, which loads panel files; fragments keep their panels inline).
(function () {
  'use strict';

  // What this copy enhances: the page; or, marked data-tb-fragment, the fragment just before
  // it; or, marked data-tb-fragment="all", every fragment above it not enhanced yet (an mdBook
  // chapter's figures share one copy).
  var boot = document.currentScript;
  var mode = boot ? boot.getAttribute('data-tb-fragment') : null;
  if (mode === 'all') {
    Array.prototype.forEach.call(document.querySelectorAll('tracebook-figure:not([data-tb-on])'), start);
  } else {
    start(mode === null ? null : boot.previousElementSibling);
  }

  // A fragment inserted by a script (innerHTML) has its declarative template unattached.
  function shadowOf(h) {
    if (h.shadowRoot) return h.shadowRoot;
    var t = h.querySelector('template[shadowrootmode]'), s = h.attachShadow({ mode: 'open' });
    if (t) { s.appendChild(t.content); t.remove(); }
    return s;
  }

  function start(host) {
    if (host) host.setAttribute('data-tb-on', '');
    var root = host ? shadowOf(host) : document;

    function $(root, sel) { return root.querySelector(sel); }
    function $$(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
    function el(name, cls, text) {
      var e = document.createElement(name);
      if (cls) e.className = cls;
      if (text != null) e.textContent = text;
      return e;
    }

    // Little-endian arrays in base64, as src/live.rs writes them.
    function numbers(b64, size, read) {
      var s = atob(b64), a = new Uint8Array(s.length), out = [], i;
      for (i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
      var v = new DataView(a.buffer);
      for (i = 0; i + size <= a.length; i += size) out.push(v[read](i, true));
      return out;
    }

    // format::percent and format::thousands.
    function pct(p) {
      var x = p * 100;
      if (p === 0) return '0%';
      if (x >= 99.95) return '100%';
      if (x >= 0.995) return x.toFixed(1) + '%';
      if (x >= 0.005) return x.toFixed(2) + '%';
      return '<0.01%';
    }
    function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
    function shortT(t) { return t.toFixed(2).replace(/0+$/, '').replace(/\.$/, ''); }
    function num(x) { return String(Math.round(x * 100) / 100); }

    // Live::view: p_T of the head tokens, the survivors and the mass they hold, at
    // temperature stop t, top-k k (0: off) and top-p stop p (-1: off).
    function view(d, t, k, p) {
      var T = d.temps[t], H = d.H, n = H.length, probs = [], i, before = 0, count = 0;
      var P = p < 0 ? null : d.tops[p];
      for (i = 0; i < n; i++) probs.push(T === 0 ? (i === 0 ? 1 : 0) : Math.exp(H[i] / T - d.Z[t]));
      for (i = 0; i < n; i++) {
        var keep = T === 0 ? i === 0 : (!k || i < k) && (P === null || i === 0 || P >= 1 || before < P);
        if (!keep) break;
        before += probs[i];
        count++;
      }
      if (count === n && n < d.vocab && T > 0 && !k) {
        if (P === null) { count = d.vocab; before = 1; }
        else { i = t * d.tops.length + p; count = d.C[i]; before = d.M[i]; }
      }
      return {
        probs: probs, n: count, mass: before,
        drawn: function (r) { return r < count ? probs[r] / before : 0; }
      };
    }

    function rules(d, s) {
      var out = 'temperature ' + d.temps[s.t];
      if (s.k) out += ', top_k ' + s.k;
      if (s.p >= 0) out += ', top_p ' + d.tops[s.p];
      return out;
    }

    function setBar(bar, width, value) {
      bar.setAttribute('width', num(width));
      bar.setAttribute('data-tb-value', String(value));
    }

    // next-token: the bars show the probability each token is drawn with.
    function drawNext(svg, d, s) {
      var v = view(d, s.t, s.k, s.p), top = d.full ? 1 : Math.max(v.drawn(0), 1e-300), sum = 0;
      for (var r = 0; r < d.rows; r++) {
        var q = v.drawn(r), bar = $(svg, '[data-tb-bar="' + r + '"]'), txt = $(svg, '[data-tb-pct="' + r + '"]');
        var len = Math.min(d.room, Math.max(1, q / top * d.room));
        setBar(bar, len, q);
        txt.setAttribute('x', num(+bar.getAttribute('x') + len + d.gap));
        txt.textContent = r < v.n ? pct(q) : 'cut';
        bar.classList.toggle('tbf-cut', r >= v.n);
        txt.classList.toggle('tbf-cut', r >= v.n);
        sum += q;
      }
      $(svg, '[data-tb-note="0"]').textContent = 'the other ' + thousands(d.vocab - d.rows) +
        ' tokens share ' + pct(Math.max(0, 1 - sum));
      return rules(d, s) + ': ' + (v.n === 1 ? '1 token survives' : thousands(v.n) + ' tokens survive') +
        '; the likeliest is drawn with ' + pct(v.drawn(0));
    }

    // temperature: the last column follows the slider; a bar of probability 1 is full length.
    function drawTemperature(svg, d, s) {
      var cols = d.cols.slice();
      cols[cols.length - 1] = s.t;
      var views = cols.map(function (t) { return view(d, t, 0, -1); });
      views.forEach(function (v, c) {
        var col = $(svg, '[data-tb-col="' + c + '"]'), rest = 1;
        for (var r = 0; r < d.rows; r++) {
          var p = v.probs[r], bar = $(col, '[data-tb-bar="' + r + '"]'), txt = $(col, '[data-tb-pct="' + r + '"]');
          var len = Math.min(d.room, Math.max(0, p * d.room));
          setBar(bar, Math.max(len, 0.5), p);
          txt.setAttribute('x', num(+bar.getAttribute('x') + len + d.gap));
          txt.textContent = pct(p);
          rest -= p;
        }
        $(svg, '[data-tb-head="' + c + '"]').textContent = 'T = ' + shortT(d.temps[cols[c]]);
        $(svg, '[data-tb-rest="' + c + '"]').textContent = 'others ' + pct(Math.max(0, rest));
      });
      var last = views[views.length - 1];
      return 'temperature ' + shortT(d.temps[s.t]) + ': the likeliest token has ' + pct(last.probs[0]);
    }

    // sampling: probability (bars to one scale), running total and the probability each row is drawn with.
    function drawSampling(svg, d, s) {
      var v = view(d, s.t, s.k, s.p), before = 0;
      var kept = $(svg, '[data-tb-g="kept"]'), cutg = $(svg, '[data-tb-g="cut"]');
      for (var r = 0; r < d.rows; r++) {
        var p = v.probs[r], alive = r < v.n, bar = $(svg, '[data-tb-bar="' + r + '"]');
        var cell = $(svg, '[data-tb-pct="' + r + '"]');
        setBar(bar, Math.max(0.5, p * d.room), v.drawn(r));
        (alive ? kept : cutg).appendChild(bar);
        before += p;
        $(svg, '[data-tb-p="' + r + '"]').textContent = pct(p);
        $(svg, '[data-tb-cum="' + r + '"]').textContent = pct(before);
        cell.textContent = alive ? pct(p / v.mass) : 'cut';
        cell.setAttribute('class', alive ? 'tbf-b' : 'tbf-dim');
      }
      var line = $(svg, '[data-tb-cut]'), y = num(d.top + Math.min(v.n, d.rows) * d.pitch);
      line.setAttribute('y1', y);
      line.setAttribute('y2', y);
      line.setAttribute('visibility', v.n < d.rows ? 'visible' : 'hidden');
      $(svg, '[data-tb-rules]').textContent = rules(d, s);
      var said = thousands(v.n) + ' of ' + thousands(d.vocab) + ' tokens survive, holding ' +
        pct(v.mass) + ' of the probability';
      $(svg, '[data-tb-note="0"]').textContent = said;
      $(svg, '[data-tb-note="1"]').textContent =
        v.n > d.rows ? thousands(v.n - d.rows) + ' more survivors are not shown' : '';
      return rules(d, s) + ': ' + said;
    }

    var draw = { 'next-token': drawNext, temperature: drawTemperature, sampling: drawSampling };

    // A labelled slider over stop indices, its value shown and spoken as text.
    function slider(name, max, value, text) {
      var label = el('label', 'tb-control'), input = el('input'), out = el('output');
      input.type = 'range';
      input.min = 0;
      input.max = max;
      input.step = 1;
      input.value = value;
      function show() {
        out.textContent = text(+input.value);
        input.setAttribute('aria-valuetext', name + ' ' + out.textContent);
      }
      show();
      input.addEventListener('input', show);
      label.append(el('span', null, name + ' '), input, out);
      return { label: label, input: input };
    }

    // Temperature, top-k and top-p; returns the redraw (which says what changed).
    function sampler(svg, d, box) {
      if (!draw[d.kind]) return null;
      d.H = numbers(d.head, 4, 'getFloat32');
      d.Z = numbers(d.z, 8, 'getFloat64');
      d.C = numbers(d.counts, 4, 'getUint32');
      d.M = numbers(d.masses, 4, 'getFloat32');
      var start = { t: d.t, k: d.k || 0, p: d.p == null ? -1 : d.p }, s = {}, k, p, kn;
      var t = slider('temperature', d.temps.length - 1, start.t, function (i) { return shortT(d.temps[i]); });
      box.append(t.label);
      // The slider's column: the last, its head in the accent colour.
      if (d.kind === 'temperature') $(svg, '[data-tb-head="' + (d.cols.length - 1) + '"]').classList.add('tbf-acc');
      else {
        k = el('input');
        k.type = 'number';
        k.min = 0;
        k.max = d.H.length;
        k.value = start.k;
        var kl = el('label', 'tb-control');
        kl.append(el('span', null, 'top-k '), k,
          el('span', 'tb-hint', ' 0 = off, at most ' + d.H.length + ' (the candidates stored)'));
        // Typed, the box shows the top-k that acts (the note says why); drawn already.
        k.addEventListener('change', function (e) {
          e.stopPropagation();
          k.value = Math.min(d.H.length, Math.max(0, Math.floor(+k.value) || 0));
        });
        kn = el('p', 'tb-hint tb-limit');
        kn.setAttribute('data-tb-limit', '');
        p = slider('top-p', d.tops.length, start.p < 0 ? d.tops.length : start.p, function (i) {
          return i >= d.tops.length ? 'off' : String(d.tops[i]);
        });
        box.append(kl, p.label);
      }
      var reset = el('button', 'tb-reset', 'Reset');
      reset.type = 'button';
      box.append(reset);
      if (kn) box.append(kn);
      reset.addEventListener('click', function () {
        t.input.value = start.t;
        if (k) { k.value = start.k; p.input.value = start.p < 0 ? d.tops.length : start.p; }
        t.input.dispatchEvent(new Event('input', { bubbles: true }));
        if (p) p.input.dispatchEvent(new Event('input', { bubbles: true }));
      });
      // The stored head is all a top-k can keep here: a larger k says so, with the mass
      // outside the head at this temperature, rather than being capped in silence.
      function read() {
        s.t = +t.input.value;
        s.asked = k ? Math.max(0, Math.floor(+k.value) || 0) : 0;
        s.k = Math.min(d.H.length, s.asked);
        s.p = p && +p.input.value < d.tops.length ? +p.input.value : -1;
        return d.kind === 'temperature' ? 'temperature ' + shortT(d.temps[s.t]) + ' in the last column' : rules(d, s);
      }
      function limit() {
        if (s.asked <= d.H.length) return '';
        var v = view(d, s.t, 0, -1), held = 0;
        for (var i = 0; i < d.H.length; i++) held += v.probs[i];
        return 'top-k ' + thousands(s.asked) + ' is more than the ' + d.H.length +
          ' likeliest tokens this page stores, so it acts as top-k ' + d.H.length + ': they hold ' +
          pct(Math.min(1, held)) + ' of the probability at temperature ' + shortT(d.temps[s.t]) +
          '; the other ' + thousands(d.vocab - d.H.length) + ' tokens hold ' + pct(Math.max(0, 1 - held)) + '. ';
      }
      return {
        state: read,
        update: function () {
          read();
          svg.closest('figure').setAttribute('data-tb-state', s.t + ',' + s.k + ',' + s.p);
          var over = limit();
          if (kn) kn.textContent = over;
          return over + draw[d.kind](svg, d, s);
        }
      };
    }

    // Pickers over build-time panels (data-tb-panel="1 3"): one <select> per axis with a choice,
    // its options the axis's labels where it has them (a token's text), else its values.
    function pickers(svg, d, box) {
      var start = d.start.split(' ');
      var values = d.axes.map(function (axis, a) {
        if (axis[1].length < 2) return { value: start[a] };
        var label = el('label', 'tb-control'), select = el('select');
        axis[1].forEach(function (v, i) {
          var option = el('option', null, axis[2] ? axis[2][i] : String(v));
          option.value = String(v);
          select.append(option);
        });
        select.value = start[a];
        label.append(el('span', null, axis[0] + ' '), select);
        box.append(label);
        return select;
      });
      function state() {
        return d.axes.map(function (a, i) {
          var v = values[i], shown = v.options ? v.options[v.selectedIndex].text : v.value;
          return a[0] + ' ' + shown;
        }).join(', ');
      }
      function show(key) {
        $$(svg, '[data-tb-panel]').forEach(function (g) {
          if (g.getAttribute('data-tb-panel') === key) g.removeAttribute('display');
          else g.setAttribute('display', 'none');
        });
      }
      // Panels the page does not carry: d.panels (a redrawn figure) or the script d.src.
      function deferred() {
        var home = $(svg, '[data-tb-panel]').parentNode;
        function place(panels) {
          d.panels = panels;
          for (var k in panels) if (!$(svg, '[data-tb-panel="' + k + '"]')) home.insertAdjacentHTML('beforeend', panels[k]);
          show(values.map(function (v) { return v.value; }).join(' '));
        }
        if (d.panels) place(d.panels);
        else if (d.src) { loadPanels(d.src).then(place); d.src = null; }
      }
      return {
        state: state,
        update: function () {
          var key = values.map(function (v) { return v.value; }).join(' ');
          if (!$(svg, '[data-tb-panel="' + key + '"]')) deferred();
          show(key);
          return state();
        }
      };
    }

    // PAGE.figure-N.panels.js calls tracebookPanels(name, panels): a script loads from file:// too.
    var panelFiles = {};
    if (!host) window.tracebookPanels = function (name, panels) { panelFiles[name].resolve(panels); };
    function loadPanels(src) {
      if (!panelFiles[src]) {
        var w = panelFiles[src] = {};
        w.promise = new Promise(function (ok) { w.resolve = ok; });
        document.head.append(Object.assign(document.createElement('script'), { src: src }));
      }
      return panelFiles[src].promise;
    }

    // The generation loop, step by step: later rows hide, the continuation grows.
    function steps(svg, d, box) {
      var n = d.texts.length, gen = $(svg, '[data-tb-gen]'), full = gen.textContent;
      var s = slider('step', n - 1, n - 1, function (i) { return (i + 1) + ' of ' + n; });
      var rows = $$(svg, 'text[y], rect[y]').map(function (e) {
        return [e, Math.floor((+e.getAttribute('y') - d.top) / d.pitch)];
      }).filter(function (r) { return r[1] >= 0 && r[1] < n; });
      box.append(s.label);
      function state() { return 'step ' + (+s.input.value + 1) + ' of ' + n; }
      return {
        state: state,
        update: function () {
          var k = +s.input.value + 1;
          rows.forEach(function (r) { r[0].setAttribute('visibility', r[1] < k ? 'visible' : 'hidden'); });
          gen.textContent = k === n ? full : d.texts.slice(0, k).join('').slice(0, full.length);
          return state() + ': ' + d.texts[k - 1];
        }
      };
    }

    // The caption describes the figure as the author set it; once the reader changes a
    // control it says what is shown now, and what the caption's own words describe.
    function captionFollows(figure, first, now) {
      var cap = $(figure, 'figcaption'), span = cap && $(cap, '.tb-now');
      if (!cap) return;
      if (now === first) { if (span) span.remove(); return; }
      if (!span) {
        span = el('span', 'tb-now');
        span.setAttribute('data-tb-now', '');
        cap.insertBefore(span, $(cap, '.tb-figure-model'));
      }
      span.textContent = 'Shown now: ' + now + '; the caption describes ' + first + '. ';
    }

    // The drawing's own <title> and <desc> (its accessible name and description, and the
    // tooltip of a saved or pasted SVG) were written for the author's panel: once a control
    // moves, they say what is shown now and which panel their words describe, as the caption
    // does; back at the author's setting they are the build's words again.
    function labelFollows(svg, first, now) {
      [['title', ' (shown now: ', ')'], ['desc', 'Shown now: ', '. ']].forEach(function (t) {
        var node = $(svg, ':scope > ' + t[0]);
        if (!node) return;
        var own = node.getAttribute('data-tb-own');
        if (own === null) { own = node.textContent; node.setAttribute('data-tb-own', own); }
        if (now === first) node.textContent = own;
        else if (t[0] === 'title') node.textContent = own + t[1] + now + t[2];
        else node.textContent = t[1] + now + '; what follows describes ' + first + t[2] + own;
      });
    }

    function live(figure, script) {
      var d = JSON.parse(script.textContent), svg = $(figure, 'svg');
      var box = el('div', 'tb-controls'), say = el('p', 'tb-sr');
      if (!svg) return;
      var make = d.kind === 'panels' ? pickers : d.kind === 'steps' ? steps : sampler;
      var made = make(svg, d, box);
      if (!made) return;
      var first = made.state();
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', 'Controls for this figure');
      say.setAttribute('aria-live', 'polite');
      function changed() {
        say.textContent = made.update();
        captionFollows(figure, first, made.state());
        labelFollows(svg, first, made.state());
      }
      box.addEventListener('input', changed);
      box.addEventListener('change', changed);
      ($(figure, '.tb-figure-art') || svg).after(box, say);
      figure.setAttribute('data-tb-ready', '');
    }

    // Token highlighting: every element of the page naming the token, and bands over its row
    // and column in each grid (data-tb-grid="prompt first n left top cell").
    var lit = null, SVG = 'http://www.w3.org/2000/svg';
    function band(g, x, y, w, h) {
      var r = document.createElementNS(SVG, 'rect');
      r.setAttribute('class', 'tb-band');
      [['x', x], ['y', y], ['width', w], ['height', h]].forEach(function (a) { r.setAttribute(a[0], num(a[1])); });
      g.appendChild(r);
    }
    function highlight(key) {
      if (key === lit) return;
      lit = key;
      $$(root, '.tb-tok-hl').forEach(function (e) { e.classList.remove('tb-tok-hl'); });
      $$(root, '.tb-band').forEach(function (e) { e.remove(); });
      if (!key) return;
      var at = key.lastIndexOf(':'), prompt = key.slice(0, at), pos = +key.slice(at + 1);
      $$(root, '[data-tb-tok="' + key + '"]').forEach(function (e) { e.classList.add('tb-tok-hl'); });
      $$(root, '[data-tb-grid]').forEach(function (g) {
        var a = g.getAttribute('data-tb-grid').split(' '), n = +a[2], x = +a[3], y = +a[4], c = +a[5];
        var i = pos - a[1];
        if (a[0] !== prompt || i < 0 || i >= n) return;
        band(g, x, y + i * c, n * c, c);
        band(g, x + i * c, y, c, n * c);
      });
    }
    function follow(e) {
      var t = e.target.closest && e.target.closest('[data-tb-tok]');
      highlight(t ? t.getAttribute('data-tb-tok') : null);
    }

    function scrollHint(art) {
      var figure = art.closest('figure');
      function mark() {
        var more = art.scrollWidth - art.clientWidth, at = art.scrollLeft;
        if (more <= 1) figure.removeAttribute('data-tb-scroll');
        else figure.setAttribute('data-tb-scroll', at <= 1 ? 'start' : at >= more - 1 ? 'end' : 'middle');
      }
      mark();
      art.addEventListener('scroll', mark, { passive: true });
      window.addEventListener('resize', mark);
    }

    // A figure's controls and focusable tokens, from its SVG and numbers.
    function enhance(figure) {
      $$(figure, '.tbf-tokens rect[data-tb-tok]').forEach(function (r) { r.setAttribute('tabindex', '0'); });
      var script = $(figure, 'script.tb-live');
      if (script) {
        try { live(figure, script); } catch (e) { console.error('tracebook.js:', e); }
      }
    }

    function init() {
      root.addEventListener('mouseover', follow);
      root.addEventListener('focusin', follow);
      $$(root, 'figure').forEach(enhance);
      $$(root, 'figure .tb-figure-art').forEach(scrollHint);
      if (host) return;
      // A figure redrawn for the reader's own prompt (tracebook-live.js), or back to the
      // author's: its controls are made again from its new numbers.
      document.addEventListener('tb:redrawn', function (e) {
        var figure = e.target;
        $$(figure, '.tb-controls, .tb-sr').forEach(function (n) { n.remove(); });
        figure.removeAttribute('data-tb-ready');
        figure.removeAttribute('data-tb-state');
        lit = null;
        enhance(figure);
      });
      offerLive();
      document.documentElement.classList.add('tb-js');
    }

    // [live]: the "Try your own prompt" buttons show, and the first click loads
    // tracebook-live.js (which takes that click over); until then nothing more is fetched.
    function offerLive() {
      var marker = $(document, '.tb-live-page');
      if (!marker) return;
      marker.hidden = false;
      $$(document, '.tb-try').forEach(function (b) { b.hidden = false; });
      document.addEventListener('click', function first(e) {
        var button = e.target.closest && e.target.closest('.tb-try');
        if (!button) return;
        document.removeEventListener('click', first);
        button.setAttribute('data-tb-pending', '');
        var script = document.createElement('script');
        script.src = marker.getAttribute('data-tb-live-script');
        document.head.appendChild(script);
      });
    }

    if (host || document.readyState !== 'loading') init();
    else document.addEventListener('DOMContentLoaded', init);
  }
})();
