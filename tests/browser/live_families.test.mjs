// [families] item 6: live mode runs every Llama-family model in the browser with the same module
// as GPT-2. Each family's test site has a random checkpoint of it (`dev test-model --arch F`:
// RoPE, RMSNorm, a gated MLP, four query heads sharing two key/value heads; Mistral with a
// sliding window of 3, shorter than the prompt; Qwen2's q/k/v biases; Qwen3's q/k norms;
// Gemma's √d embeddings, 1 + w norms and GELU) stored in f16, and the site's live precision is
// f16, so the browser model is the site's model bit for bit: the author's prompt typed by the
// reader must redraw every figure of the page exactly as the build drew it from the trace that
// `tracebook trace` wrote natively.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here, serve, svgs, sameDrawing, runLive } from './harness.mjs';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
const FAMILIES = {
  llama: [],
  mistral: ['--set', 'sliding_window=3'],
  qwen2: [],
  qwen3: [],
  gemma: [],
};
let work, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-families-'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A copy of the browser test site on a random `family` model, traced and built; served. */
async function siteOf(family) {
  const site = join(work, family);
  cpSync(join(here, 'site'), site, { recursive: true });
  rmSync(join(site, 'traces'), { recursive: true, force: true });
  const name = `tiny-${family}`;
  run(['dev', 'test-model', join(site, 'models', name), '--arch', family, '--dtype', 'f16', ...FAMILIES[family]]);
  const config = readFileSync(join(site, 'tracebook.toml'), 'utf8').replace('models/tracebook-tiny-en', `models/${name}`);
  writeFileSync(join(site, 'tracebook.toml'), config + '\n[live]\nenabled = true\nprecision = "f16"\n');
  run(['trace', '--root', site]);
  const out = join(site, 'public');
  run(['build', '--root', site, '--out', out]);
  const server = await serve(out);
  return { out, name, server, origin: `http://127.0.0.1:${server.address().port}` };
}

for (const family of Object.keys(FAMILIES)) {
  test(`${family}: the model runs in the browser and redraws the author's figures exactly`, async () => {
    const { out, name, server, origin } = await siteOf(family);
    try {
      await redrawsExactly(out, name, origin, family);
    } finally {
      server.close();
    }
  });
}

async function redrawsExactly(out, name, origin, family) {
  const config = JSON.parse(readFileSync(join(out, 'live', 'config.json'), 'utf8'));
  assert.equal(config.model_type, family, 'the browser model keeps its family');

  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${origin}/controls.html`);
  const built = await svgs(page);
  const ids = (await (await fetch(`${origin}/controls.live.json`)).json()).figures.map((f) => f.id);
  await page.locator('figure .tb-try').first().click();
  assert.equal(await runLive(page, 'The robots will bring'), '');

  const redrawn = await svgs(page);
  assert.ok(ids.length >= 3, `figures redrawn live: ${ids}`);
  for (const id of ids) {
    assert.ok(sameDrawing(redrawn[id], built[id]), `figure ${id} differs from the build's:\n${redrawn[id].slice(0, 400)}\n${built[id].slice(0, 400)}`);
  }
  const caption = new RegExp(`traced in your browser by ${name} \\(f16 weights\\)`);
  assert.match(await page.locator(`#${ids[0]} .tb-live-caption`).textContent(), caption);

  // A prompt of the reader's own: the model answers, and the figures show its tokens.
  assert.equal(await runLive(page, 'My sister paints the old house'), '');
  const mine = await svgs(page);
  assert.ok(ids.some((id) => mine[id].includes('paints')), 'the reader\'s tokens are drawn');
  assert.deepEqual(problems, []);
  await context.close();
}
