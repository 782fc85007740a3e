// [live]: the reader's own prompt, traced and drawn in Chromium by the WebAssembly module, on a
// site served from 127.0.0.1.
//
// Site A (the fixture site with [live] on) gives the browser model (int8). Site B uses that
// browser model as its own model: `tracebook trace` traces B natively with it, and B's build
// writes the same browser model again (int8 is idempotent). So on B, the reader typing the
// author's own prompt must redraw every figure exactly as `tracebook build` drew it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, statSync, mkdtempSync, cpSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, tracebook, here, repo, serve, svgs, sameDrawing } from './harness.mjs';

const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const tokenizeReference = join(target, 'release', 'examples', 'tokenize_reference');

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
let work, out, server, origin, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-'));
  const siteA = join(work, 'a');
  cpSync(join(here, 'site'), siteA, { recursive: true });
  mkdirSync(join(siteA, 'models'));
  cpSync(join(repo, 'models', 'tracebook-tiny-en'), join(siteA, 'models', 'tracebook-tiny-en'), { recursive: true });
  const live = '\n[live]\nenabled = true\nprecision = "int8"\n';
  writeFileSync(join(siteA, 'tracebook.toml'), readFileSync(join(siteA, 'tracebook.toml'), 'utf8') + live);
  run(['trace', '--root', siteA]);
  run(['build', '--root', siteA, '--out', join(work, 'a-public')]);

  const siteB = join(work, 'b');
  cpSync(join(here, 'site'), siteB, { recursive: true });
  const model = join(siteB, 'models', 'tracebook-tiny-en');
  mkdirSync(model, { recursive: true });
  for (const file of ['config.json', 'model.safetensors', 'tokenizer.json']) {
    cpSync(join(work, 'a-public', 'live', file), join(model, file));
  }
  writeFileSync(join(siteB, 'tracebook.toml'), readFileSync(join(siteB, 'tracebook.toml'), 'utf8') + live);
  // A figure kind of the site's own (the example's figures/neuron.svg): the browser draws it
  // from the template the page hands over, as the build drew it.
  mkdirSync(join(siteB, 'figures'));
  for (const file of ['neuron.svg', 'neuron.toml']) cpSync(join(repo, 'figures', file), join(siteB, 'figures', file));
  const controls = join(siteB, 'content', 'controls.md');
  writeFileSync(controls, readFileSync(controls, 'utf8')
    + '\n```figure neuron\nprompt = "robots"\nlayer = 1\nneuron = 3\ncaption = "One neuron, by a kind of the site\'s own."\n```\n');
  run(['trace', '--root', siteB]);
  out = join(work, 'b-public');
  run(['build', '--root', siteB, '--out', out]);
  // The same site offering the reader's prompt once per page.
  writeFileSync(join(siteB, 'tracebook.toml'), readFileSync(join(siteB, 'tracebook.toml'), 'utf8') + 'offer = "page"\n');
  run(['build', '--root', siteB, '--out', join(out, 'page-offer')]);
  server = await serve(out);
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A page of site B, watched for console errors and requests that leave its origin. */
async function open(file = 'controls.html', options = {}) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 }, ...options });
  const page = await context.newPage();
  const problems = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    requests.push(r.url());
    // blob: URLs of the page's own origin are the cached worker script and glue.
    const local = [origin, `blob:${origin}/`, 'file:'];
    if (!local.some((p) => r.url().startsWith(p))) problems.push(`request outside the site: ${r.url()}`);
  });
  await page.goto(file.startsWith('file:') ? file : `${origin}/${file}`);
  return { page, context, problems, requests };
}

/** The page's live data (PAGE.live.json beside it). */
async function liveData(page) {
  return page.evaluate(async () => (await fetch(document.querySelector('.tb-live-page').dataset.tbLivePage)).json());
}

/** Opens the form under the first figure offering it, types `text` and runs it. */
async function tryPrompt(page, text) {
  const button = page.locator('figure .tb-try').first();
  await button.click();
  const input = page.locator('.tb-live-input').first();
  await input.fill(text);
  await page.locator('.tb-live-run').first().click();
  await page.waitForFunction(() => {
    const form = document.querySelector('.tb-live-form');
    return form && !form.querySelector('.tb-live-run').disabled && !form.querySelector('progress:not([hidden])');
  }, null, { timeout: 60000 });
}

test('before the reader asks, nothing of live/ is fetched and the button is there', async () => {
  const { page, context, problems, requests } = await open();
  await page.waitForLoadState('networkidle');
  assert.ok(await page.locator('figure .tb-try:not([hidden])').count() > 0, 'a Try button shows');
  assert.deepEqual(requests.filter((u) => u.includes('/live/')), []);
  // The page's own weight: HTML, CSS and scripts it loads before any click.
  let bytes = 0;
  for (const url of new Set(requests)) {
    const file = join(out, decodeURIComponent(new URL(url).pathname));
    if (existsSync(file) && statSync(file).isFile()) bytes += statSync(file).size;
  }
  // 156.5 KB measured: a page of every heatmap kind, each colour with the page's custom
  // property that may replace it (docs/authoring.md, "Themes").
  assert.ok(bytes <= 160 * 1024, `the page weighs ${bytes} bytes before opting in`);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the author's prompt typed by the reader redraws every figure as the build drew it", async (t) => {
  const { page, context, problems } = await open();
  const built = await svgs(page);
  const data = await liveData(page);
  const author = data.prompts.robots.text;
  await tryPrompt(page, author);
  assert.equal(await page.locator('.tb-live-error').first().textContent(), '');
  const redrawn = await svgs(page);
  const live = data.figures.map((f) => f.id);
  assert.ok(live.length >= 3, `${live.length} figures are redrawn`);
  const own = data.figures.find((f) => f.kind === 'neuron');
  assert.ok(own && own.own && own.own.template.includes('<svg'), 'the author\'s kind travels with its template');
  assert.ok(built[own.id].includes('tbf-own-neuron'), 'the build drew the author\'s kind');
  const exact = live.filter((id) => redrawn[id] === built[id]).length;
  t.diagnostic(`${exact} of ${live.length} redrawn figures are byte-identical to the build's`);
  for (const id of live) {
    assert.ok(redrawn[id], `figure ${id} has an SVG`);
    assert.ok(sameDrawing(redrawn[id], built[id]), `figure ${id} differs from the build's:\n${redrawn[id].slice(0, 400)}\n${built[id].slice(0, 400)}`);
  }
  // Captions say whose prompt it is; the prose says its numbers are the author's.
  const caption = await page.locator(`#${live[0]} .tb-live-caption`).textContent();
  // The model as the pages name it: a folder model by its folder's name, never its path.
  assert.match(caption, /Your prompt, traced in your browser by tracebook-tiny-en \(int8 weights\)/);
  assert.match(await page.locator('.tb-live-prose').textContent(), /about the author’s prompt “The robots will bring”/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a new prompt changes the figures, keeps the controls working, and Back restores them', async () => {
  const { page, context, problems } = await open();
  const built = await svgs(page);
  const ids = (await liveData(page)).figures.map((f) => f.id);
  await tryPrompt(page, 'A small dog ran across the');
  const redrawn = await svgs(page);
  assert.ok(ids.every((id) => redrawn[id] !== built[id]), 'every live figure changed');
  assert.ok(redrawn[ids[0]].includes(' dog'), 'the reader\'s tokens are drawn');
  // A figure with controls got them again, and they redraw the reader's figure.
  const controlled = page.locator('figure.tb-live-shown[data-tb-ready]').first();
  assert.ok(await controlled.count() > 0, 'a redrawn figure has controls');
  const before = await controlled.locator('svg').evaluate((s) => s.outerHTML);
  const slider = controlled.locator('input[type="range"]').first();
  await slider.focus();
  await slider.press('End');
  const after = await controlled.locator('svg').evaluate((s) => s.outerHTML);
  assert.notEqual(after, before, 'the control redrew the figure');
  assert.ok(after.includes(' dog'), 'still the reader\'s prompt');
  await page.locator('.tb-live-back').first().click();
  const restored = await svgs(page);
  for (const id of ids) assert.equal(restored[id], built[id], `figure ${id} is the author's again`);
  assert.equal(await page.locator('.tb-live-prose').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad input gets a message and leaves the figures as they were', async () => {
  const { page, context, problems } = await open();
  const built = await svgs(page);
  for (const [text, message] of [['   \n ', /^Type a few words in the box first/], ['word '.repeat(200), /^Your text is \d+ tokens long, and this model reads at most \d+ tokens/]]) {
    await tryPrompt(page, text);
    const error = await page.locator('.tb-live-error').first().textContent();
    assert.match(error, message, `the message for ${JSON.stringify(text.slice(0, 12))}: ${error}`);
    assert.deepEqual(await svgs(page), built, 'no figure changed');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('the model is kept in Cache Storage: a second page fetches it no more', async () => {
  const { page, context, problems, requests } = await open();
  await tryPrompt(page, 'The robots will bring');
  assert.equal(requests.filter((u) => u.includes('model.safetensors')).length, 1);
  await page.goto(`${origin}/controls.html`);
  const count = requests.length;
  await tryPrompt(page, 'The robots will take');
  const again = requests.slice(count);
  assert.deepEqual(again.filter((u) => u.includes('model.safetensors') || u.endsWith('.wasm')), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the session runs in a Web Worker, so loading the model never blocks the page', async () => {
  const { page, context, problems } = await open();
  const workers = [];
  page.on('worker', (w) => workers.push(w));
  await tryPrompt(page, 'The robots will take');
  assert.equal(await page.locator('.tb-live-error').first().textContent(), '');
  assert.equal(workers.length, 1, 'one worker for the session');
  assert.match(workers[0].url(), /^blob:/, 'started from the cached worker script');
  assert.ok(await page.locator('.tb-live-caption').count() > 0, 'the figures are redrawn');
  // A second prompt goes to the same worker.
  await page.locator('.tb-live-input').first().fill('The robots will bring');
  await page.locator('.tb-live-run').first().click();
  await page.waitForFunction(() => !document.querySelector('.tb-live-run').disabled);
  assert.equal(workers.length, 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('once tried, the reader\'s prompt works offline from Cache Storage', async () => {
  const { page, context, problems, requests } = await open();
  await tryPrompt(page, 'The robots will bring');
  // Another page, with the network gone for live/ (the page and its scripts still load, as
  // they would from the browser's cache or the site's offline worker): the session starts
  // from Cache Storage alone.
  await context.route(`${origin}/live/**`, (route) => route.abort('internetdisconnected'));
  await page.goto(`${origin}/controls.html`);
  const count = requests.length;
  await tryPrompt(page, 'The robots will take');
  assert.equal(await page.locator('.tb-live-error').first().textContent(), '');
  assert.ok(await page.locator('.tb-live-caption').count() > 0, 'the figures are redrawn');
  // Only the manifest was asked of the network (and failed); everything else came from the cache.
  const asked = requests.slice(count).filter((u) => u.startsWith(`${origin}/live/`));
  assert.deepEqual(asked.map((u) => new URL(u).pathname), ['/live/manifest.json']);
  assert.deepEqual(problems.filter((p) => !p.includes('ERR_INTERNET_DISCONNECTED')), []);
  await context.close();
});

test('from file:// the button says the site must be served', async () => {
  const { page, context } = await open(pathToFileURL(join(out, 'controls.html')).href);
  await page.locator('figure .tb-try').first().click();
  assert.match(await page.locator('.tb-live-error').first().textContent(), /served/);
  await context.close();
});

test('the tokenizer in the browser gives the native ids', async () => {
  const strings = [
    'The robots will bring', "The animal didn't cross the street because it was too tired",
    "it's", 'IT’S', '  \t\n  x', '123456789012345678901234567890', '3.14159', '日本語のテキスト',
    '👨\u200D👩\u200D👧\u200D👦', '<|endoftext|>', 'Hello<|endoftext|>World', 'a\u00A0b', 'x   y', '\uFFFD',
  ];
  const native = JSON.parse(execFileSync(tokenizeReference, [join(out, 'live', 'tokenizer.json')],
    { input: JSON.stringify(strings), encoding: 'utf8' }));
  const { page, context, problems } = await open();
  const ids = await page.evaluate(async (strings) => {
    const glue = await import('./live/tracebook_live.js');
    const wasm = await (await fetch('./live/tracebook_live_bg.wasm')).arrayBuffer();
    await glue.default({ module_or_path: wasm });
    const [config, weights, tokenizer] = await Promise.all([
      fetch('./live/config.json').then((r) => r.text()),
      fetch('./live/model.safetensors').then((r) => r.arrayBuffer()),
      fetch('./live/tokenizer.json').then((r) => r.text()),
    ]);
    const live = new glue.Live('m', config, new Uint8Array(weights), tokenizer);
    return strings.map((s) => Array.from(live.tokenize(s, false)));
  }, strings);
  assert.deepEqual(ids, native);
  assert.deepEqual(problems, []);
  await context.close();
});

test('with offer = "page" one button under the title redraws the page\'s figures', async () => {
  const { page, context, problems } = await open('page-offer/controls.html');
  const built = await svgs(page);
  assert.equal(await page.locator('figure .tb-try').count(), 0, 'no button under the figures');
  const button = page.locator('.tb-live-page .tb-try');
  assert.ok(await button.isVisible());
  await button.click();
  await page.locator('.tb-live-input').fill('A small dog ran across the');
  await page.locator('.tb-live-run').click();
  await page.waitForFunction(() => document.querySelector('figure.tb-live-shown'), null, { timeout: 60000 });
  const redrawn = await svgs(page);
  const ids = (await liveData(page)).figures.map((f) => f.id);
  assert.ok(ids.length >= 3);
  for (const id of ids) assert.notEqual(redrawn[id], built[id], `figure ${id} redrawn`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the box starts empty, with the author\'s prompt as its example, and Run traces that', async () => {
  const { page, context, problems } = await open();
  const built = await svgs(page);
  await page.locator('figure .tb-try').first().click();
  const input = page.locator('.tb-live-input').first();
  assert.equal(await input.inputValue(), '');
  assert.equal(await input.getAttribute('placeholder'), 'The robots will bring');
  await page.locator('.tb-live-run').first().click();
  await page.waitForSelector('.tb-live-caption', { timeout: 60000 });
  const redrawn = await svgs(page);
  for (const id of Object.keys(built)) {
    assert.ok(sameDrawing(redrawn[id] || '', built[id] || ''), `figure ${id} redraws the author's prompt`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a redrawn figure\'s caption describes the reader\'s prompt, and its position follows', async () => {
  const { page, context, problems } = await open('steps.html');
  const steps = page.locator('figure.tb-figure-attention-steps');
  assert.equal(await steps.locator('.tb-figure-caption').textContent(), 'Attention for the query " will".');
  await tryPrompt(page, 'A small dog ran across the');
  assert.equal(await page.locator('.tb-live-error').first().textContent(), '');
  // token = 2 of 4 is the second from the end: in the reader's prompt, " across".
  const label = await steps.locator('.tb-figure-art').getAttribute('aria-label');
  assert.match(label, /for the query " across"/, label);
  assert.equal(await steps.locator('.tb-figure-caption').isHidden(), true, 'the author\'s caption is set aside');
  const caption = await steps.locator('.tb-live-caption').textContent();
  assert.ok(caption.includes(label), `the caption says what the figure shows now: ${caption}`);
  assert.ok(!caption.includes('" will"'), caption);
  await page.locator('.tb-live-back').first().click();
  assert.equal(await steps.locator('.tb-figure-caption').isVisible(), true);
  assert.equal(await steps.locator('.tb-live-caption').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
