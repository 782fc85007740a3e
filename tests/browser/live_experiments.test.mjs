// [interventions], [attribution]: a reader's own prompt is ablated and attributed in the
// browser as `tracebook trace` does the author's, and the `ablation`, `logit-attribution`,
// `saliency` and `flow` figures redraw for it, a target written `guess(1)` becoming the
// reader's own top guess; a `patching` figure, whose corrupted text belongs to the author's
// prompt, is offered no redraw. The site is the browser test site
// with one more article on the shipped model at f16 (the weights as stored, so the browser
// model is the site's bit for bit): typing the author's own prompt must redraw the ablation
// exactly as the build drew it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here, repo, serve, svgs, sameDrawing, runLive } from './harness.mjs';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
const TEXT = 'He was happy and loved';
const ARTICLE = `+++
title = "Experiments"
weight = 50

[prompts]
he = { text = "${TEXT}", ablate = { targets = ["guess(1)", " her"], mode = "zero" }, patch = { corrupted = "She was happy and loved", answer = " his", wrong = " her" }, attribute = { targets = ["guess(1)", " her"] } }
+++

Block 0 moves information into the last token.{{ claim he max(flow.attn[0, last(), :]) > 0 }}

\`\`\`figure ablation
prompt = "he"
caption = "Each head zeroed."
\`\`\`

\`\`\`figure patching
prompt = "he"
caption = "He patched into She."
\`\`\`

\`\`\`figure logit-attribution
prompt = "he"
caption = "What each part wrote."
\`\`\`

\`\`\`figure saliency
prompt = "he"
caption = "Which tokens mattered."
\`\`\`

\`\`\`figure flow
prompt = "he"
caption = "Where information flowed."
\`\`\`
`;
let work, browser, server, origin, out;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-experiments-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  cpSync(join(repo, 'models', 'tracebook-tiny-en'), join(site, 'models', 'tracebook-tiny-en'), { recursive: true });
  writeFileSync(join(site, 'content', 'experiments.md'), ARTICLE);
  const config = readFileSync(join(site, 'tracebook.toml'), 'utf8');
  writeFileSync(join(site, 'tracebook.toml'), config + '\n[live]\nenabled = true\nprecision = "f16"\n');
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

test('the experiments\' figures redraw for the reader\'s prompt; patching is not offered', async () => {
  const live = await (await fetch(`${origin}/experiments.live.json`)).json();
  const kinds = live.figures.map((f) => f.kind);
  assert.deepEqual(kinds, ['ablation', 'logit-attribution', 'saliency', 'flow'], `figures offered live: ${kinds}`);
  assert.equal(live.prompts.he.options.patch, undefined, 'the reader\'s prompt is patched into nothing');
  assert.deepEqual(live.prompts.he.options.ablate.targets, ['guess(1)', ' her']);
  assert.deepEqual(live.figures[0].picks, ['targets: guess(1), " her"']);
  assert.deepEqual(live.figures[3].picks ?? [], [], 'flow draws no targets');

  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${origin}/experiments.html`);
  const built = await svgs(page);
  const [ablation, patching, ...attribution] = Object.keys(built);
  assert.equal(attribution.length, 3);
  assert.equal(await page.locator(`#${patching} .tb-try`).count(), 0, 'no try button under patching');
  await page.locator(`#${ablation} .tb-try`).click();

  // The author's prompt, typed by the reader: the same runs, the same drawing.
  assert.equal(await runLive(page, TEXT), '');
  let now = await svgs(page);
  assert.ok(sameDrawing(now[ablation], built[ablation]), `the ablation differs from the build's:\n${now[ablation].slice(0, 400)}`);
  for (const id of attribution) {
    assert.ok(sameDrawing(now[id], built[id]), `${id} differs from the build's:\n${now[id].slice(0, 400)}`);
  }
  const claim = page.locator('.tb-claim').first();
  assert.equal(await claim.getAttribute('data-live'), 'holds');

  // A prompt of the reader's own: ablated in the browser, the headline's probability is the
  // model's on the new text; the patching figure stays the author's.
  assert.equal(await runLive(page, 'She smiled and shook'), '');
  now = await svgs(page);
  assert.ok(!sameDrawing(now[ablation], built[ablation]), 'the ablation was redrawn');
  assert.match(now[ablation], /with nothing ablated/);
  for (const id of attribution) {
    assert.ok(!sameDrawing(now[id], built[id]), `${id} was redrawn`);
  }
  // The reader's top guess is the first target: its text is the first candidate the
  // ablation's base run lists, and the caption states the rule.
  const caption = await page.locator(`#${ablation} figcaption`).innerText();
  assert.match(caption, /targets: guess\(1\), " her"/);
  assert.ok(sameDrawing(now[patching], built[patching]), 'patching is the author\'s');
  // ...and says so under it, in the page's words; Back takes the note away.
  const kept = page.locator(`#${patching} .tb-live-kept`);
  assert.match(await kept.innerText(), /still shows the author’s prompt/);
  assert.equal((live.kept || []).length, 1);
  await page.locator('.tb-live-back').first().click();
  assert.equal(await page.locator('.tb-live-kept').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
