// [live] with a browser model over 16 MiB: the build writes it in parts of at most 16 MiB
// (static hosts limit a file's size), and the reader's browser fetches every part under one
// progress bar and joins them. The model is stored in f16 and the site's live precision is f16,
// so the browser model is the site's model bit for bit: the author's prompt typed by the reader
// must redraw every figure as the build drew it, which only holds if the parts joined right.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, statSync, mkdtempSync, cpSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here, serve, svgs, sameDrawing } from './harness.mjs';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
let work, out, server, origin, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-parts-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  rmSync(join(site, 'traces'), { recursive: true, force: true });
  // 192 wide: a 50257-token embedding of 19 MB at f16 alone, so the model needs two parts.
  run(['dev', 'test-model', join(site, 'models', 'wide'), '--set', 'n_embd=192', '--dtype', 'f16']);
  const config = readFileSync(join(site, 'tracebook.toml'), 'utf8').replace('models/tracebook-tiny-en', 'models/wide');
  writeFileSync(join(site, 'tracebook.toml'), config + '\n[live]\nenabled = true\nprecision = "f16"\n');
  run(['trace', '--root', site]);
  out = join(work, 'public');
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

test('a model over 16 MiB is written in parts, fetched together under one bar, and joined', async () => {
  const manifest = JSON.parse(readFileSync(join(out, 'live', 'manifest.json'), 'utf8'));
  const parts = manifest.weights.parts;
  assert.deepEqual(parts.map((p) => p.file), ['model.safetensors.001', 'model.safetensors.002']);
  assert.equal(parts.reduce((n, p) => n + p.bytes, 0), manifest.weights.bytes);
  for (const file of readdirSync(join(out, 'live'))) {
    assert.ok(statSync(join(out, 'live', file)).size <= 16 * 1024 * 1024, `${file} is over 16 MiB`);
  }
  assert.ok(!existsSync(join(out, 'live', 'model.safetensors')), 'no whole copy beside the parts');

  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [], started = [], events = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { started.push(r.url()); events.push(['asked', r.url()]); });
  page.on('requestfinished', (r) => events.push(['done', r.url()]));
  await page.goto(`${origin}/controls.html`);
  const built = await svgs(page);
  const ids = (await (await fetch(`${origin}/controls.live.json`)).json()).figures.map((f) => f.id);
  // Every progress value the bar shows while loading, with its maximum.
  await page.evaluate(() => {
    window.barSeen = [];
    const watch = () => {
      const bar = document.querySelector('.tb-live-form progress');
      if (bar && !bar.hidden) window.barSeen.push([bar.value, bar.max]);
      requestAnimationFrame(watch);
    };
    watch();
  });
  await page.locator('figure .tb-try').first().click();
  await page.locator('.tb-live-input').first().fill('The robots will bring');
  await page.locator('.tb-live-run').first().click();
  await page.waitForFunction(() => {
    const form = document.querySelector('.tb-live-form');
    return form && !form.querySelector('.tb-live-run').disabled && !form.querySelector('progress:not([hidden])');
  }, null, { timeout: 60000 });
  assert.equal(await page.locator('.tb-live-error').first().textContent(), '');

  const partUrls = started.filter((u) => /model\.safetensors\.\d{3}/.test(u));
  assert.equal(partUrls.length, 2, `each part fetched once: ${partUrls}`);
  // Both parts were asked for before either arrived: fetched together, not one after the other.
  const partEvents = events.filter(([, u]) => partUrls.includes(u)).map(([kind]) => kind);
  assert.deepEqual(partEvents, ['asked', 'asked', 'done', 'done'], 'the parts are fetched together');
  const seen = await page.evaluate(() => window.barSeen);
  const total = manifest.weights.bytes + manifest.module.bytes;
  assert.ok(seen.length > 0, 'the bar showed while loading');
  // Before the first bytes arrive the bar has no maximum yet.
  const counting = seen.filter(([value]) => value > 0);
  assert.ok(counting.length > 0 && counting.every(([, max]) => max === total), `one bar for the parts and the module together: ${JSON.stringify(seen.slice(0, 5))}`);
  assert.ok(seen.some(([value]) => value > manifest.weights.parts[0].bytes), 'the bar counts past one part');

  const redrawn = await svgs(page);
  assert.ok(ids.length >= 3);
  for (const id of ids) {
    assert.ok(sameDrawing(redrawn[id], built[id]), `figure ${id} differs from the build's:\n${redrawn[id].slice(0, 400)}\n${built[id].slice(0, 400)}`);
  }
  assert.match(await page.locator(`#${ids[0]} .tb-live-caption`).textContent(), /traced in your browser by wide \(f16 weights\)/);
  assert.deepEqual(problems, []);
  await context.close();
});
