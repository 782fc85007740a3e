// [seq2seq] item 6: live mode runs an encoder-decoder in the browser, beside the site's own
// model, as the example site's encoder-decoder article needs. The test site's model is the
// built-in tracebook-tiny-en; its prompt `fichier` is pinned to models/tracebook-tiny-en-fr
// (English→French, Marian's architecture, f16), which the build writes as a second browser
// model (live/models/tracebook-tiny-en-fr/). The live precision is f16, so each browser model
// is its model bit for bit: the author's source text typed by the reader must redraw every
// figure of that prompt (cross-attention, encoder and decoder self-attention, the translation
// step by step) exactly as the build drew it from the trace that `tracebook trace` wrote
// natively; a source of the reader's own is translated in the page; and a figure of the site's
// model on the same page still runs on its own session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, cpSync, writeFileSync, mkdirSync, rmSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, repo, serve, svgs, sameDrawing, runLive } from './harness.mjs';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
const SOURCE = 'Error while reading the configuration file';
let work, browser, server, origin, out;

const PAGE = `+++
title = "Translation"
+++

The model wrote "{{ translation fichier }}".

\`\`\`figure cross-attention
prompt = "fichier"
layer = 2
\`\`\`

\`\`\`figure attention
prompt = "fichier"
stack = "encoder"
layer = 2
head = 1
\`\`\`

\`\`\`figure attention
prompt = "fichier"
stack = "decoder"
layer = 2
head = 1
\`\`\`

\`\`\`figure generation
prompt = "fichier"
\`\`\`

\`\`\`figure architecture
prompt = "fichier"
\`\`\`

\`\`\`figure attention
prompt = "robots"
layer = 1
head = 0
\`\`\`
`;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-seq2seq-'));
  const site = join(work, 'site');
  mkdirSync(join(site, 'content'), { recursive: true });
  mkdirSync(join(site, 'models'));
  cpSync(join(repo, 'models', 'tracebook-tiny-en-fr'), join(site, 'models', 'tracebook-tiny-en-fr'), { recursive: true });
  writeFileSync(join(site, 'tracebook.toml'), `title = "Live translation"
description = "A fixture: an encoder-decoder traced in the browser."

[model]
id = "tracebook-mini-en"

[live]
enabled = true
precision = "f16"

[prompts]
fichier = { text = "${SOURCE}", model = "models/tracebook-tiny-en-fr" }
robots = "The robots will bring"
`);
  writeFileSync(join(site, 'content', 'translation.md'), PAGE);
  run(['trace', '--root', site]);
  out = join(site, 'public');
  run(['build', '--root', site, '--out', out]);
  server = await serve(out);
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the encoder-decoder runs in the browser beside the site\'s model and redraws the author\'s figures exactly', async () => {
  const config = JSON.parse(readFileSync(join(out, 'live', 'models', 'tracebook-tiny-en-fr', 'config.json'), 'utf8'));
  assert.equal(config.model_type, 'marian', 'the second browser model is the encoder-decoder');
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (![origin, `blob:${origin}`].some((p) => r.url().startsWith(p))) problems.push(`request outside the site: ${r.url()}`); });
  await page.goto(`${origin}/translation.html`);
  const built = await svgs(page);
  const data = await (await fetch(`${origin}/translation.live.json`)).json();
  assert.equal(data.prompts.fichier.manifest, 'models/tracebook-tiny-en-fr/manifest.json');
  assert.equal(data.prompts.robots.manifest, undefined, 'the site\'s model: live/manifest.json');
  const ids = data.figures.filter((f) => f.prompt === 'fichier').map((f) => f.id);
  assert.equal(ids.length, 4, `every figure drawn from the trace is redrawn live (the architecture is the config's): ${ids}`);

  await page.locator(`#${ids[0]} .tb-try`).click();
  assert.equal(await runLive(page, SOURCE), '');
  const redrawn = await svgs(page);
  for (const id of ids) {
    assert.ok(sameDrawing(redrawn[id], built[id]), `figure ${id} differs from the build's:\n${redrawn[id].slice(0, 400)}\n${built[id].slice(0, 400)}`);
  }
  assert.match(await page.locator(`#${ids[0]} .tb-live-caption`).textContent(), /traced in your browser by tracebook-tiny-en-fr \(f16 weights\)/);

  // A source of the reader's own: the page translates it and draws its alignment.
  assert.equal(await runLive(page, 'File not found'), '');
  const mine = await svgs(page);
  assert.ok(mine[ids[0]].includes('Fichier'), 'the cross-attention rows are the reader\'s translation');
  assert.ok(mine[ids[0]].includes('found'), 'its columns are the reader\'s source');
  assert.ok(mine[ids[3]].includes('File not found'), 'the generation figure shows the reader\'s source');

  // The site's model, on the same page, in a session of its own.
  await page.locator('.tb-live-back').first().click();
  const robots = data.figures.find((f) => f.prompt === 'robots').id;
  await page.locator(`#${robots} .tb-try`).click();
  const form = page.locator(`#${robots} + .tb-live-form`);
  await form.locator('.tb-live-input').fill('My sister paints the old house');
  await form.locator('.tb-live-run').click();
  await page.waitForFunction((id) => {
    const f = document.querySelector(`#${id} + .tb-live-form`);
    return f && !f.querySelector('.tb-live-run').disabled && !f.querySelector('progress:not([hidden])');
  }, robots, { timeout: 60000 });
  assert.equal(await form.locator('.tb-live-error').textContent(), '');
  assert.ok((await svgs(page))[robots].includes('house'), 'the site\'s model traced the reader\'s prompt');
  assert.match(await page.locator(`#${robots} .tb-live-caption`).textContent(), /traced in your browser by tracebook-mini-en \(f16 weights\)/);
  assert.deepEqual(problems, []);
  await context.close();
});
