// [embed] item 2: an mdBook book whose chapters hold tracebook figures, built by the real
// mdBook (tests/mdbook.sh installs it into target/tools; MDBOOK names another) and served on
// 127.0.0.1: every fragment is enhanced by the chapter's one script, a figure's controls and
// token highlighting work inside its shadow root, the fragments keep their own sizes under
// mdBook's 10 px root, and mdBook's page and scripts are as they were.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { launch, tracebook, repo, serve } from './harness.mjs';

const mdbook = process.env.MDBOOK || join(repo, 'target/tools/bin/mdbook');
const skip = existsSync(mdbook) ? false : `no mdbook at ${mdbook}: run bash tests/mdbook.sh first`;
let work, browser, server, base;

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'tracebook-mdbook-'));
  const book = join(work, 'book');
  cpSync(join(repo, 'tests/books/basic'), book, { recursive: true });
  mkdirSync(join(book, 'traces'));
  for (const name of ['animal', 'cats']) cpSync(join(repo, `traces/${name}.json`), join(book, `traces/${name}.json`));
  execFileSync(mdbook, ['build', book], {
    stdio: 'pipe', env: { ...process.env, PATH: `${dirname(tracebook)}:${process.env.PATH}` },
  });
  browser = await launch();
  server = await serve(join(book, 'book'));
  base = `http://127.0.0.1:${server.address().port}/`;
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function open(file) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 1400 } });
  const tab = await context.newPage();
  const problems = [];
  tab.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  tab.on('pageerror', (e) => problems.push(e.message));
  tab.on('request', (r) => { if (!r.url().startsWith(base)) problems.push(`request outside the book: ${r.url()}`); });
  await tab.goto(base + file);
  return { tab, context, problems };
}

test('a chapter\'s figures are enhanced and keep their sizes in mdBook\'s page', { skip }, async () => {
  const { tab, context, problems } = await open('attention.html');
  const figures = await tab.evaluate(() => Array.from(document.querySelectorAll('tracebook-figure')).map((h) => {
    const root = h.shadowRoot, svg = root && root.querySelector('.tb-figure-art svg');
    return { on: h.hasAttribute('data-tb-on'), width: svg ? svg.getBoundingClientRect().width : 0,
      caption: parseFloat(getComputedStyle(root.querySelector('figcaption')).fontSize) };
  }));
  assert.equal(figures.length, 2);
  for (const f of figures) {
    assert.ok(f.on && f.width > 300, `drawn and enhanced: ${JSON.stringify(f)}`);
    // mdBook sets html { font-size: 62.5% }: a rem inside the fragment would be 10 px.
    assert.ok(f.caption >= 13, `the caption keeps its size: ${f.caption}px`);
  }
  // Hovering a token of the attention map highlights it there, and nothing outside.
  const at = await tab.evaluate(() => {
    const root = document.querySelector('tracebook-figure').shadowRoot;
    const r = Array.from(root.querySelectorAll('[data-tb-tok]')).map((e) => e.getBoundingClientRect()).find((b) => b.width > 0);
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  await tab.mouse.move(at.x, at.y);
  const lit = await tab.evaluate(() => ({
    inside: document.querySelector('tracebook-figure').shadowRoot.querySelectorAll('.tb-tok-hl').length,
    outside: document.querySelectorAll('.tb-tok-hl').length,
  }));
  assert.ok(lit.inside > 0 && lit.outside === 0, JSON.stringify(lit));
  // mdBook's own page: its sidebar lists the chapters, its menu button still works.
  const chapters = await tab.evaluate(() => Array.from(document.querySelectorAll('.sidebar ol.chapter a')).map((a) => a.textContent.trim()));
  assert.ok(chapters.some((c) => /Attention/.test(c)) && chapters.some((c) => /Next token/.test(c)), chapters.join(' | '));
  const before = await tab.evaluate(() => document.documentElement.className);
  await tab.click('#mdbook-sidebar-toggle');
  const afterClick = await tab.evaluate(() => document.documentElement.className);
  assert.notEqual(afterClick, before, 'mdBook\'s sidebar toggle still works');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a figure\'s controls work in a chapter, and the print page enhances every chapter\'s', { skip }, async () => {
  const { tab, context, problems } = await open('next-token.html');
  const moved = await tab.evaluate(() => {
    const root = document.querySelector('tracebook-figure').shadowRoot;
    const slider = root.querySelector('.tb-controls input[type=range]');
    if (!slider) return null;
    const svg = () => root.querySelector('.tb-figure-art svg').innerHTML;
    const first = svg();
    slider.value = slider.max;
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    return svg() !== first;
  });
  assert.equal(moved, true, 'moving the slider redraws the figure');
  assert.deepEqual(problems, []);
  await context.close();

  const print = await open('print.html');
  const hosts = await print.tab.evaluate(() => Array.from(document.querySelectorAll('tracebook-figure')).map((h) => h.hasAttribute('data-tb-on') && !!h.shadowRoot));
  assert.deepEqual(hosts, [true, true, true]);
  assert.deepEqual(print.problems, []);
  await print.context.close();
});
