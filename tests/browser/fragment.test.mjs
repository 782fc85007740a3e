// [embed] item 3: `tracebook figure --html` writes a fragment that works pasted into any page.
// The host page here does its worst: style sheets that hide every svg and select and recolour
// everything with !important, a global `$` and `tracebookPanels` of its own, a <figure
// class="tb-figure"> of its own. Two fragments pasted into it (an ablation with a target picker,
// an attention map with head pickers and token highlighting) must show, work and leave the
// host's styles and globals as they were; a third goes into an iframe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, repo } from './harness.mjs';

let work, browser;

function fragment(block, ...args) {
  const out = join(work, `f${Math.random().toString(36).slice(2)}.html`);
  execFileSync(tracebook, ['figure', block, '--html', out, '--root', repo, ...args], { stdio: 'pipe' });
  return readFileSync(out, 'utf8');
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-fragment-'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const HOST = (body) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Someone else's page</title>
<style>
  * { font-family: "Comic Sans MS", cursive !important; color: rgb(255, 0, 0) !important; }
  svg, select { display: none !important; }
  figure { margin: 7px; border: 9px solid rgb(0, 255, 0); }
</style>
<script>window.$ = function () { return 'host'; }; window.tracebookPanels = 'host';</script>
</head><body>
<h1>Host page</h1>
<figure class="tb-figure" id="host-figure"><figcaption class="tb-figure-number">host</figcaption></figure>
<script>window.before = Object.keys(window).sort().join(' ');</script>
${body}
</body></html>`;

test('a fragment shows and works in a hostile page and changes nothing of it', async () => {
  const ablation = fragment('ablation\nprompt = "he_loved"\ncaption = "Each head, mean-ablated."');
  const attention = fragment('attention\nprompt = "animal"\nlayer = 1\nhead = 2\npickers = "heads"', '--number', '2');
  const page = join(work, 'host.html');
  writeFileSync(page, HOST(ablation + attention));
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const tab = await context.newPage();
  const problems = [];
  tab.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  tab.on('pageerror', (e) => problems.push(e.message));
  await tab.goto(`file://${page}`);

  // Both figures are drawn, in their own style: the host's rules do not reach inside.
  const shown = await tab.evaluate(() => Array.from(document.querySelectorAll('tracebook-figure')).map((f) => {
    const svg = f.shadowRoot && f.shadowRoot.querySelector('.tb-figure-art svg');
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    const caption = f.shadowRoot.querySelector('figcaption');
    return { width: box.width, height: box.height, colour: getComputedStyle(caption).color, font: getComputedStyle(caption).fontFamily };
  }));
  assert.equal(shown.length, 2);
  for (const s of shown) {
    assert.ok(s.width > 300 && s.height > 100, `the figure shows: ${JSON.stringify(s)}`);
    assert.notEqual(s.colour, 'rgb(255, 0, 0)', 'the host\'s colour does not reach inside');
    assert.ok(!/Comic/.test(s.font), `the host's font does not reach inside: ${s.font}`);
  }

  // The fragments' style does not leak out, and the host's globals are untouched.
  const host = await tab.evaluate(() => {
    const f = document.getElementById('host-figure'), cs = getComputedStyle(f);
    return { margin: cs.marginTop, border: cs.borderTopWidth, dollar: window.$(), panels: window.tracebookPanels,
      added: Object.keys(window).filter((k) => k !== 'before' && !window.before.split(' ').includes(k)) };
  });
  assert.deepEqual(host, { margin: '7px', border: '9px', dollar: 'host', panels: 'host', added: [] });

  // The ablation's target picker switches the drawing inside its shadow root.
  const picked = await tab.evaluate(() => {
    const root = document.querySelectorAll('tracebook-figure')[0].shadowRoot;
    const select = root.querySelector('.tb-controls select');
    if (!select) return null;
    const svg = () => root.querySelector('.tb-figure-art svg').innerHTML;
    const first = svg();
    select.value = select.options[select.options.length - 1].value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    select.dispatchEvent(new Event('input', { bubbles: true }));
    return { options: select.options.length, changed: svg() !== first, visible: getComputedStyle(select).display !== 'none' };
  });
  assert.deepEqual(picked, { options: 2, changed: true, visible: true });

  // Two fragments on one page are Figures 1 and 2 (`--number`), each with its own anchor.
  const numbers = await tab.evaluate(() => Array.from(document.querySelectorAll('tracebook-figure')).map((f) => {
    const figure = f.shadowRoot.querySelector('figure');
    return [figure.id, f.shadowRoot.querySelector('.tb-figure-number').textContent.trim()];
  }));
  assert.deepEqual(numbers, [['figure-1', 'Figure 1.'], ['figure-2', 'Figure 2.']]);

  // The head picker takes the theme's accent, and the drawing's <title> and <desc> follow it:
  // they say which head is shown now, and are the build's own again back at head 2.
  const labels = await tab.evaluate(() => {
    const root = document.querySelectorAll('tracebook-figure')[1].shadowRoot;
    const select = root.querySelector('.tb-controls select');
    const svg = root.querySelector('.tb-figure-art svg');
    const read = () => [svg.querySelector(':scope > title').textContent, svg.querySelector(':scope > desc').textContent];
    const pick = (v) => { select.value = v; select.dispatchEvent(new Event('change', { bubbles: true })); return read(); };
    const own = read(), first = select.value;
    const other = Array.from(select.options).find((o) => o.value !== first).value;
    const accent = getComputedStyle(root.host).getPropertyValue('--accent').trim();
    const probe = document.createElement('i');
    probe.style.color = accent;
    root.appendChild(probe);
    return { own, other: pick(other), back: pick(first), otherHead: other,
      border: getComputedStyle(select).borderTopColor, accent: getComputedStyle(probe).color };
  });
  assert.match(labels.own[0], /head 2/);
  assert.ok(labels.other[0].startsWith(labels.own[0] + ' (shown now: '), `title: ${labels.other[0]}`);
  assert.match(labels.other[0], new RegExp(`head ${labels.otherHead}\\)$`));
  assert.ok(labels.other[1].startsWith('Shown now: ') && labels.other[1].endsWith(labels.own[1]), `desc: ${labels.other[1]}`);
  assert.deepEqual(labels.back, labels.own);
  assert.equal(labels.border, labels.accent, 'the picker is drawn in the theme\'s accent');

  // Hovering a token of the attention map highlights its row and column there.
  // (The hidden panels' tokens are there too: the pointer goes to the first one drawn.)
  const at = await tab.evaluate(() => {
    const root = document.querySelectorAll('tracebook-figure')[1].shadowRoot;
    const shown = Array.from(root.querySelectorAll('[data-tb-tok]')).map((e) => e.getBoundingClientRect()).find((r) => r.width > 0);
    return { x: shown.x + shown.width / 2, y: shown.y + shown.height / 2 };
  });
  await tab.mouse.move(at.x, at.y);
  const lit = await tab.evaluate(() => {
    const root = document.querySelectorAll('tracebook-figure')[1].shadowRoot;
    return { marked: root.querySelectorAll('.tb-tok-hl').length, bands: root.querySelectorAll('.tb-band').length,
      outside: document.querySelectorAll('.tb-tok-hl, .tb-band').length };
  });
  assert.ok(lit.marked > 0 && lit.bands >= 2 && lit.bands % 2 === 0, `highlighted: ${JSON.stringify(lit)}`);
  assert.equal(lit.outside, 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a phone a fragment stays inside the host page and scrolls inside its own box', async () => {
  const attention = fragment('attention\nprompt = "animal"\nlayer = 1\nhead = 2');
  const page = join(work, 'narrow.html');
  writeFileSync(page, `<!doctype html><meta name="viewport" content="width=device-width"><title>narrow</title><p>Host text.</p>${attention}`);
  const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
  const tab = await context.newPage();
  await tab.goto(`file://${page}`);
  const box = await tab.evaluate(() => {
    const root = document.querySelector('tracebook-figure').shadowRoot;
    const art = root.querySelector('.tb-figure-art').getBoundingClientRect();
    return { page: document.documentElement.scrollWidth, artLeft: art.left, artRight: art.right,
      host: document.querySelector('tracebook-figure').getBoundingClientRect().left };
  });
  assert.ok(box.page <= 390, `the host page does not scroll sideways: ${JSON.stringify(box)}`);
  assert.ok(box.artLeft >= box.host && box.artRight <= 390, `the figure's box stays in the host's column: ${JSON.stringify(box)}`);
  await context.close();
});

test('a fragment works inside an iframe and needs no network', async () => {
  const ablation = fragment('ablation\nprompt = "animal_was"');
  const page = join(work, 'frame.html');
  writeFileSync(page, `<!doctype html><title>frame</title><iframe width="700" height="700" srcdoc="${ablation.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>`);
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const tab = await context.newPage();
  const requests = [];
  tab.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('about:')) requests.push(r.url()); });
  await tab.goto(`file://${page}`);
  const frame = tab.frames()[1];
  await frame.waitForSelector('tracebook-figure');
  const width = await frame.evaluate(() => document.querySelector('tracebook-figure').shadowRoot.querySelector('svg').getBoundingClientRect().width);
  assert.ok(width > 300, `the figure shows in the iframe (${width})`);
  assert.deepEqual(requests, []);
  await context.close();
});
