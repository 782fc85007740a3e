// tracebook-live.js: the reader's own prompt, on pages of a site with [live] enabled.
// tracebook.js shows "Try your own prompt" and loads this script on its first click; this
// script then fetches the page's live data (PAGE.live.json: which figures can be redrawn, from
// which prompts) and downloads the site's browser model and WebAssembly module from live/
// (with a progress bar, kept in Cache Storage for the next page and offline use), traces the
// reader's text with the same Rust code `tracebook trace` runs, and redraws every figure of
// that prompt with the same code `tracebook build` draws them with. The prose keeps the
// author's numbers, and says so while a reader's prompt is shown. A classic script (module
// scripts do not run from file://, where it says the site must be served); no globals.
// Each prompt runs on its own model: the site's (live/manifest.json), or the one its
// `model` names (the manifest its page data gives); each model gets its own session.
(function () {
  'use strict';

  var data, starting = {}, current = null, originals = {};
  // How the live module starts a message meant for the site's author (bindings.rs, AUTHOR).
  var AUTHOR = 'tracebook-live, for the site\'s author: ';
  var dir, words, article;

  function $(root, sel) { return root.querySelector(sel); }
  function $$(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
  function el(name, cls, text) {
    var e = document.createElement(name);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function fill(text, values) {
    Object.keys(values).forEach(function (k) { text = text.split('{' + k + '}').join(values[k]); });
    return text;
  }
  function size(n) {
    return n >= 1048576 ? (n / 1048576).toFixed(1) + ' MB' : Math.max(1, Math.round(n / 1024)) + ' KB';
  }

  // This site's live cache (Cache Storage exists only in secure contexts), or null.
  function openCache() {
    return typeof caches !== 'undefined' && window.isSecureContext
      ? caches.open('tracebook-live-' + new URL(dir).pathname).catch(function () { return null; })
      : Promise.resolve(null);
  }

  // A file of live/, from the cache when this build's copy is there, else downloaded (with
  // `progress(done, total)`) and kept.
  function cached(name, sha, progress) {
    var url = new URL(name, dir).href + (sha ? '?v=' + sha.slice(0, 16) : '');
    var open = openCache();
    return open.then(function (cache) {
      var hit = cache ? cache.match(url) : Promise.resolve(null);
      return hit.then(function (response) {
        if (response) return response.arrayBuffer();
        return download(url, progress).then(function (bytes) {
          if (!cache) return bytes;
          // Older builds' copies of this file go; this one stays.
          return cache.keys().then(function (keys) {
            return Promise.all(keys.filter(function (k) {
              return k.url.split('?')[0] === url.split('?')[0] && k.url !== url;
            }).map(function (k) { return cache.delete(k); }));
          }).then(function () {
            return cache.put(url, new Response(bytes.slice(0)));
          }).then(function () { return bytes; }, function () { return bytes; });
        });
      });
    });
  }

  function download(url, progress) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error('cannot download ' + url + ': HTTP ' + response.status);
      var total = +response.headers.get('Content-Length') || 0;
      if (!progress || !response.body || !response.body.getReader) return response.arrayBuffer();
      var reader = response.body.getReader(), parts = [], done = 0;
      function next() {
        return reader.read().then(function (r) {
          if (r.done) {
            var out = new Uint8Array(done), at = 0;
            parts.forEach(function (p) { out.set(p, at); at += p.length; });
            return out.buffer;
          }
          parts.push(r.value);
          done += r.value.length;
          progress(done, total);
          return next();
        });
      }
      return next();
    });
  }

  // The buffers of the model's parts, joined in order into one.
  function join(buffers) {
    if (buffers.length === 1) return buffers[0];
    var length = buffers.reduce(function (n, b) { return n + b.byteLength; }, 0);
    var out = new Uint8Array(length), at = 0;
    buffers.forEach(function (b) { out.set(new Uint8Array(b), at); at += b.byteLength; });
    return out.buffer;
  }

  // The manifest `name` (of live/) from the server, or the copy kept with the model offline.
  function manifestFile(name) {
    var url = new URL(name, dir).href;
    var open = openCache();
    return open.then(function (cache) {
      return fetch(url, { cache: 'no-cache' }).then(function (r) {
        if (!r.ok) throw new Error('cannot download ' + name + ': HTTP ' + r.status);
        if (cache) cache.put(url, r.clone()).catch(function () {});
        return r.json();
      }, function (e) {
        return (cache ? cache.match(url) : Promise.resolve(null)).then(function (hit) {
          if (!hit) throw e;
          return hit.json();
        });
      });
    });
  }

  // The session's worker at `url`: call(op, args, transfer) answers with the worker's result,
  // or fails with its message.
  function worker(url) {
    var w = new Worker(url, { type: 'module' }), calls = {}, next = 0;
    w.onmessage = function (e) {
      var c = calls[e.data.id];
      delete calls[e.data.id];
      if (e.data.error != null) c.reject(new Error(e.data.error)); else c.resolve(e.data.result);
    };
    w.onerror = function (e) {
      e.preventDefault();
      Object.keys(calls).forEach(function (id) { calls[id].reject(new Error(e.message || 'the live module did not start')); });
      calls = {};
    };
    return {
      stop: function () { w.terminate(); },
      call: function (op, args, transfer) {
        return new Promise(function (resolve, reject) {
          var id = ++next;
          calls[id] = { resolve: resolve, reject: reject };
          w.postMessage({ id: id, op: op, args: args }, transfer || []);
        });
      }
    };
  }

  // The manifest of `prompt`'s model, relative to live/.
  function manifestOf(prompt) {
    return (data.prompts[prompt] && data.prompts[prompt].manifest) || 'manifest.json';
  }

  // A session: the manifest `name`, the module and its model, once per page, in a worker.
  function start(ui, name) {
    if (starting[name]) return starting[name];
    var started = starting[name] = manifestFile(name).then(function (manifest) {
      var total = manifest.weights.bytes + manifest.module.bytes, got = {};
      // The model comes in parts of at most 16 MiB (static hosts limit a file's size), fetched
      // at once; one bar counts every byte of them and of the module.
      var parts = manifest.weights.parts || [{ file: manifest.weights.file, bytes: manifest.weights.bytes }];
      // Only the session the form waits for (`ui.loading`) shows its progress there.
      function progress(key) {
        return function (done) {
          got[key] = done;
          if (ui.loading !== name) return;
          var sum = 0;
          for (var k in got) sum += got[k];
          ui.bar.hidden = false;
          ui.bar.max = total;
          ui.bar.value = sum;
          ui.status.textContent = fill(words.loading, { done: size(sum), total: size(total) });
        };
      }
      if (ui.loading === name) ui.bar.hidden = false;
      // The glue and the worker script are kept too (as blob: URLs when started), so that a
      // reader who tried once can try again offline.
      return Promise.all([
        cached(manifest.module.file, manifest.module.sha256, progress('m')),
        Promise.all(parts.map(function (part, i) {
          return cached(part.file, manifest.weights.sha256, progress('w' + i));
        })).then(join),
        cached(manifest.config, manifest.weights.sha256),
        manifest.tokenizer ? cached(manifest.tokenizer, manifest.weights.sha256) : Promise.resolve(undefined),
        cached(manifest.glue, manifest.module.sha256),
        cached(manifest.worker.file, manifest.worker.sha256)
      ]).then(function (got) {
        var utf8 = new TextDecoder();
        var script = function (bytes) { return URL.createObjectURL(new Blob([bytes], { type: 'text/javascript' })); };
        if (ui.loading === name) ui.status.textContent = words.starting;
        var session = worker(script(got[5]));
        return session.call('start', {
          glue: script(got[4]),
          module: got[0],
          weights: got[1],
          config: utf8.decode(got[2]),
          tokenizer: got[3] ? utf8.decode(got[3]) : undefined,
          modelId: manifest.model_id,
          traceOptions: JSON.stringify(manifest.trace_options),
          training: manifest.training ? JSON.stringify(manifest.training) : undefined
        }, [got[0], got[1]]).then(function () {
          if (ui.loading === name) ui.bar.hidden = true;
          return { session: session, manifest: manifest };
        }, function (e) {
          session.stop();
          throw e;
        });
      });
    });
    started.catch(function () { delete starting[name]; });
    return started;
  }

  // The figures drawn from `prompt`, as the page lists them.
  function figuresOf(prompt) {
    return data.figures.filter(function (f) { return f.prompt === prompt; });
  }

  function redrawn(figure) {
    figure.dispatchEvent(new CustomEvent('tb:redrawn', { bubbles: true }));
  }

  // Puts `drawn` (one figure of Live.draw_page) in its <figure>, keeping the author's copy.
  function show(drawn, manifest) {
    var figure = document.getElementById(drawn.id);
    if (!figure) return;
    var art = $(figure, '.tb-figure-art'), script = $(figure, 'script.tb-live');
    if (!originals[drawn.id]) {
      originals[drawn.id] = {
        art: art.innerHTML, label: art.getAttribute('aria-label'),
        script: script ? script.textContent : null
      };
    }
    art.innerHTML = drawn.svg;
    art.setAttribute('aria-label', drawn.alt);
    if (script && drawn.live) script.textContent = drawn.live;
    // The author's caption describes the author's prompt: while the figure shows the reader's,
    // its own description (drawn from the figure's data) stands in for it.
    var note = $(figure, '.tb-live-caption') || el('span', 'tb-live-caption');
    var said = fill(words.caption, { model: manifest.model_id, precision: manifest.precision });
    note.textContent = said.replace(/\.$/, '') + ': ' + drawn.alt + ' ';
    // Which token it shows in the reader's text, by the rule the author's options give (not
    // a rule the reader's text could not answer: that option was set aside).
    var entry = data.figures.filter(function (f) { return f.id === drawn.id; })[0];
    var aside = drawn.set_aside || [];
    var picks = ((entry && entry.picks) || []).filter(function (p) { return aside.indexOf(p.split(':')[0]) < 0; });
    if (picks.length) note.textContent += fill(words.pick, { picks: picks.join(', ') }) + ' ';
    // An option of the author's that the reader's text could not take (values that do not
    // fit a long sentence, a word it lacks) was set aside.
    if (drawn.set_aside && drawn.set_aside.length) note.textContent += words.adapted + ' ';
    var own = $(figure, '.tb-figure-caption');
    if (own) own.hidden = true;
    $(figure, 'figcaption').prepend(note);
    figure.classList.add('tb-live-shown');
    redrawn(figure);
  }

  // The page's checked sentences, asked again of the reader's text by the same evaluator the
  // build ran (the live module): each mark says whether its sentence holds on the reader's
  // text, does not, or is about the author's prompt only, in its sign, its tooltip and
  // `data-live`; claims about another prompt of the page are the author's. The author's marks
  // are kept to put back.
  var claimMarks = null;
  function markClaims(l, prompt) {
    var marks = $$(article, '.tb-claim[data-claim]');
    if (!marks.length) return Promise.resolve(null);
    var mine = marks.filter(function (m) { return m.getAttribute('data-claim-prompt') === prompt; });
    var sources = mine.map(function (m) { return m.getAttribute('data-claim'); });
    return l.session.call('claims', { prompt: prompt, claims: JSON.stringify(sources) }).then(function (json) {
      var checks = JSON.parse(json), count = { holds: 0, fails: 0, author: 0 };
      unmarkClaims();
      claimMarks = marks.map(function (m) {
        return { mark: m, sign: m.textContent, title: m.getAttribute('title'), cls: m.className };
      });
      marks.forEach(function (m) {
        var at = mine.indexOf(m);
        var check = at < 0 ? { live: 'author', why: 'prompt' } : checks[at];
        var word = words['claim_' + check.live];
        count[check.live] += 1;
        m.setAttribute('data-live', check.live);
        if (check.why) m.setAttribute('data-live-why', check.why);
        m.className = 'tb-claim tb-claim-live-' + check.live;
        m.textContent = check.live === 'holds' ? '✓' : check.live === 'fails' ? '✗' : '○';
        // Why a sentence is the author's, in the reader's words (the author's terms go to
        // the console).
        var detail = check.live === 'author'
          ? fill(words['why_' + check.why] || words.why_other, { token: '“' + (check.token || '') + '”' })
          : check.detail;
        if (check.live === 'author' && check.detail) console.info('tracebook-live.js:', m.getAttribute('data-claim'), '–', check.detail);
        m.setAttribute('title', word + ': ' + detail);
        // The verdict is the mark's accessible name, not only its sign and colour.
        m.setAttribute('aria-label', m.getAttribute('title'));
      });
      return count;
    });
  }
  function unmarkClaims() {
    (claimMarks || []).forEach(function (o) {
      o.mark.textContent = o.sign;
      o.mark.setAttribute('title', o.title);
      o.mark.className = o.cls;
      o.mark.removeAttribute('data-live');
      o.mark.removeAttribute('data-live-why');
      o.mark.removeAttribute('aria-label');
    });
    claimMarks = null;
  }

  // Figures of the prompt that a reader's run leaves the author's (an author's own kind,
  // patching) say so under them, in the page's words.
  function keep(prompt) {
    $$(article, '.tb-live-kept').forEach(function (n) { n.remove(); });
    (data.kept || []).filter(function (k) { return k.prompt === prompt; }).forEach(function (k) {
      var figure = document.getElementById(k.id), caption = figure && $(figure, 'figcaption');
      if (caption) caption.prepend(el('span', 'tb-live-kept', words['kept_' + k.why] + ' '));
    });
  }

  function restore() {
    unmarkClaims();
    $$(article, '.tb-live-kept').forEach(function (n) { n.remove(); });
    Object.keys(originals).forEach(function (id) {
      var figure = document.getElementById(id), o = originals[id];
      var art = $(figure, '.tb-figure-art'), script = $(figure, 'script.tb-live');
      art.innerHTML = o.art;
      art.setAttribute('aria-label', o.label);
      if (script && o.script != null) script.textContent = o.script;
      var note = $(figure, '.tb-live-caption'), own = $(figure, '.tb-figure-caption');
      if (note) note.remove();
      if (own) own.hidden = false;
      figure.classList.remove('tb-live-shown');
      redrawn(figure);
    });
    originals = {};
    current = null;
    article.classList.remove('tb-live-on');
    var prose = $(document, '.tb-live-prose');
    if (prose) prose.remove();
  }

  function run(ui, prompt, textValue) {
    ui.error.textContent = '';
    ui.run.disabled = true;
    var spec = data.prompts[prompt], l;
    ui.loading = manifestOf(prompt);
    return start(ui, ui.loading).then(function (started) {
      l = started;
      return l.session.call('draw', {
        prompt: prompt, text: textValue, options: JSON.stringify(spec.options || {}),
        figures: JSON.stringify(figuresOf(prompt))
      });
    }).then(function (json) {
      var drawn = JSON.parse(json);
      var failed = drawn.filter(function (d) { return d.error; });
      if (current && current !== prompt) restore();
      drawn.forEach(function (d) { if (!d.error) show(d, l.manifest); });
      keep(prompt);
      current = prompt;
      article.classList.add('tb-live-on');
      if (!$(document, '.tb-live-prose')) {
        var p = el('p', 'tb-live-prose', fill(words.prose, { prompt: spec.text }));
        var header = $(article, '.tb-article-header') || article.firstChild;
        header.after(p);
      }
      ui.back.hidden = false;
      ui.status.textContent = '';
      // The session's messages about a figure are the author's (its options, in the site's
      // syntax): the reader is told in the page's words, the author in the console.
      failed.forEach(function (d) { console.info('tracebook-live.js, for the site\'s author:', d.id, d.error); });
      if (failed.length) ui.error.textContent = words.failed;
      return markClaims(l, prompt);
    }).then(function (count) {
      var prose = $(document, '.tb-live-prose');
      var sum = prose && ($(prose, '.tb-live-claims') || prose.appendChild(el('span', 'tb-live-claims')));
      if (!sum) return;
      sum.textContent = count ? ' ' + fill(words.claims, {
        holds: count.holds, fails: count.fails, author: count.author
      }) : '';
    }).catch(function (e) {
      // The session's messages about the text (empty, too long) are the reader's to read;
      // one for the site's author is shown in the page's words and logged.
      var message = (e && e.message) || String(e);
      if (message.indexOf(AUTHOR) >= 0) {
        console.info(message);
        message = words.failed;
      }
      ui.bar.hidden = true;
      ui.status.textContent = '';
      ui.error.textContent = message;
    }).then(function () { ui.run.disabled = false; });
  }

  // The form: the prompt's text to edit, Run, Back, a progress bar and messages.
  function form(prompts, chosen) {
    var box = el('form', 'tb-live-form'), ui = {};
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', words.try);
    var label = el('label', 'tb-live-label'), input = el('textarea', 'tb-live-input');
    input.rows = 2;
    // Empty, with the author's prompt as the example: Run on an empty box traces that.
    input.placeholder = data.prompts[chosen].text;
    label.append(el('span', null, words.prompt + ' '), input);
    var select = null;
    if (prompts.length > 1) {
      select = el('select', 'tb-live-choice');
      prompts.forEach(function (name) {
        var o = el('option', null, data.prompts[name].text);
        o.value = name;
        select.append(o);
      });
      select.value = chosen;
      select.addEventListener('change', function () {
        input.placeholder = data.prompts[select.value].text;
        preload(ui, select.value);
      });
      box.append(select);
    }
    ui.run = el('button', 'tb-live-run', words.run);
    ui.run.type = 'submit';
    ui.back = el('button', 'tb-live-back', words.back);
    ui.back.type = 'button';
    ui.back.hidden = true;
    ui.bar = el('progress', 'tb-live-progress');
    ui.bar.hidden = true;
    ui.status = el('p', 'tb-live-status');
    ui.status.setAttribute('role', 'status');
    ui.error = el('p', 'tb-live-error');
    ui.error.setAttribute('role', 'alert');
    box.append(label, ui.run, ui.back, ui.bar, ui.status, ui.error);
    box.addEventListener('submit', function (e) {
      e.preventDefault();
      var name = select ? select.value : chosen;
      run(ui, name, input.value === '' ? data.prompts[name].text : input.value);
    });
    ui.back.addEventListener('click', function () {
      restore();
      ui.back.hidden = true;
      ui.error.textContent = '';
    });
    box.ui = ui;
    box.input = input;
    return box;
  }

  // Where a reader asks: a form under the figure (or under the page's title).
  function openForm(button) {
    var figure = button.closest('figure');
    var entry = figure && data.figures.filter(function (f) { return f.id === figure.id; })[0];
    var names = Object.keys(data.prompts);
    var anchor = figure || button;
    var open = anchor.nextElementSibling;
    if (open && open.classList.contains('tb-live-form')) { open.input.focus(); return; }
    var box = entry ? form([entry.prompt], entry.prompt) : form(names, names[0]);
    anchor.after(box);
    if (!figure) button.hidden = true;
    box.input.focus();
    preload(box.ui, entry ? entry.prompt : names[0]);
  }

  // The session of `prompt`'s model loads in its worker while the reader types (the page
  // stays responsive); Run waits for it. A failure is shown now and tried again on Run.
  function preload(ui, prompt) {
    var name = ui.loading = manifestOf(prompt);
    ui.bar.hidden = true;
    ui.error.textContent = '';
    start(ui, name).then(function () {
      if (ui.loading === name && !ui.run.disabled) ui.status.textContent = '';
    }, function (e) {
      if (ui.loading !== name) return;
      ui.bar.hidden = true;
      ui.status.textContent = '';
      ui.error.textContent = (e && e.message) || String(e);
    });
  }

  // From file:// nothing can be fetched: the button says how to serve the site instead.
  function notServed(button) {
    var note = el('span', 'tb-live-error', ' ' + words.served);
    note.setAttribute('role', 'alert');
    button.after(note);
    button.disabled = true;
  }

  function init() {
    var marker = $(document, '.tb-live-page');
    if (!marker) return;
    dir = new URL(marker.getAttribute('data-tb-live'), location.href).href;
    article = $(document, '.tb-article') || document.body;
    var pending = $(document, '.tb-try[data-tb-pending]');
    if (location.protocol === 'file:') {
      words = { served: marker.getAttribute('data-tb-live-served') };
      $$(document, '.tb-try').forEach(function (b) {
        b.addEventListener('click', function () { if (!b.disabled) notServed(b); });
      });
      if (pending) notServed(pending);
      return;
    }
    var url = new URL(marker.getAttribute('data-tb-live-page'), location.href).href;
    fetch(url).then(function (r) {
      if (!r.ok) throw new Error('cannot download ' + url + ': HTTP ' + r.status);
      return r.json();
    }).then(function (json) {
      data = json;
      words = data.words;
      $$(document, '.tb-try').forEach(function (b) {
        b.addEventListener('click', function () { openForm(b); });
      });
      if (pending) {
        pending.removeAttribute('data-tb-pending');
        openForm(pending);
      }
    }).catch(function (e) { console.error('tracebook-live.js:', e); });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
