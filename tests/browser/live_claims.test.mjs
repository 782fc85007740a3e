// [live-claims] item 2: after a reader's run, every checked sentence of the page is asked again
// of the reader's text by the live module (the build's evaluator, compiled to WebAssembly):
// its mark says holds, does not hold (with the values) or about the author's prompt only, the
// page sums them up, and Back puts the author's marks back. On the fixture site with [live] on,
// a page of four claims about "The robots will bring": one that carries over and fails on a
// longer text, one that carries over and holds, one about a literal word of the author's
// prompt, and one that finds " robots" by its text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, cpSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here, repo, serve, runLive } from './harness.mjs';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
let work, server, origin, browser;

const PAGE = `+++
title = "Claims"
description = "Sentences checked against the trace, and again against the reader's."
weight = 30
+++

\`\`\`figure tokens
prompt = "robots"
caption = "The prompt's tokens."
\`\`\`

The prompt is short{{ claim robots count() < 5 }}. The model gives its top guess some
probability{{ claim robots prob(guess(1)) > 0 }}. Its second word is " robots"{{ claim robots token(1) == " robots" }},
which comes right after the first{{ claim robots pos(" robots") == first() + 1 }}.

\`\`\`figure layernorm
prompt = "robots"
layer = 0
token = 'pos(" robots")'
caption = "The vector of “ robots” before and after the first layernorm."
\`\`\`
`;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-claims-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  mkdirSync(join(site, 'models'));
  cpSync(join(repo, 'models', 'tracebook-tiny-en'), join(site, 'models', 'tracebook-tiny-en'), { recursive: true });
  writeFileSync(join(site, 'tracebook.toml'), readFileSync(join(site, 'tracebook.toml'), 'utf8') + '\n[live]\nenabled = true\nprecision = "int8"\n');
  writeFileSync(join(site, 'content', 'claims.md'), PAGE);
  run(['trace', '--root', site]);
  run(['build', '--root', site, '--out', join(work, 'public')]);
  server = await serve(join(work, 'public'));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const marks = (page) => page.evaluate(() => Array.from(document.querySelectorAll('.tb-claim')).map((m) => ({
  live: m.getAttribute('data-live'), sign: m.textContent, title: m.getAttribute('title'),
  name: m.getAttribute('aria-label'),
})));
const summary = (page) => page.evaluate(() => {
  const s = document.querySelector('.tb-live-prose .tb-live-claims');
  return s ? s.textContent.trim() : null;
});

test('the reader\'s text re-checks each sentence, the page sums it up, and Back restores the author\'s marks', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${origin}/claims.html`);
  const author = await marks(page);
  assert.deepEqual(author.map((m) => [m.live, m.sign]), [[null, '✓'], [null, '✓'], [null, '✓'], [null, '✓']]);

  await page.locator('figure .tb-try').first().click();
  assert.equal(await runLive(page, 'A small dog ran across the green field'), '');
  await page.waitForFunction(() => document.querySelector('.tb-claim[data-live]'), null, { timeout: 60000 });
  const mine = await marks(page);
  assert.deepEqual(mine.map((m) => [m.live, m.sign]), [['fails', '✗'], ['holds', '✓'], ['author', '–'], ['author', '–']]);
  assert.equal(mine[0].title, "Does not hold on your text: `count()` is 8, not < 5");
  assert.match(mine[1].title, /^Holds on your text too: /);
  assert.ok(mine.every((m) => m.name === m.title), 'the verdict is each mark\'s accessible name');
  assert.match(mine[2].title, /^About the author’s prompt only: position 1 is a place in the author's text/);
  assert.match(mine[3].title, /^About the author’s prompt only: .*robots/);
  assert.equal(await summary(page), 'On your text, 1 of 2 checked statements hold; about the author’s prompt only: 2.');

  // A text with " robots" once: the sentence that finds it by its text is asked, and holds.
  assert.equal(await runLive(page, 'Two robots will bring'), '');
  await page.waitForFunction(() => document.querySelectorAll('.tb-claim[data-live="holds"]').length === 3, null, { timeout: 60000 });
  assert.deepEqual((await marks(page)).map((m) => m.live), ['holds', 'holds', 'author', 'holds']);
  assert.equal(await summary(page), 'On your text, 3 of 3 checked statements hold; about the author’s prompt only: 1.');
  // The layernorm figure picks " robots" in the reader's text by the author's rule, and says so.
  const norm = await page.evaluate(() => {
    const figure = Array.from(document.querySelectorAll('figure.tb-live-shown')).find((f) => f.querySelector('.tbf-layernorm'));
    return figure && figure.querySelector('.tb-live-caption').textContent;
  });
  assert.ok(norm && norm.includes('Picked in your text by the author’s rule: token = pos(" robots")'), norm);
  assert.match(norm, /robots/);

  await page.locator('.tb-live-back').first().click();
  assert.deepEqual(await marks(page), author);
  assert.equal(await summary(page), null);
  assert.deepEqual(problems, []);
  await context.close();
});
