// pickers = "all" on a model with more heads than a page carries (5 layers × 4 heads = 20
// panels, more than 16): the page holds only the figure's own panel, and the others load from
// the script beside the page when the reader first picks, from file:// as from a server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tracebook, buildSite, launch, open } from './harness.mjs';

let root, site, browser;
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tracebook-deferred-'));
  const run = (...args) => execFileSync(tracebook, args, { cwd: root, stdio: 'pipe', env: { ...process.env, XDG_CACHE_HOME: join(root, '.cache') } });
  run('dev', 'test-model', '--shape', 'tiny', '--set', 'n_layer=5', '--set', 'n_head=4', 'models/wide');
  writeFileSync(join(root, 'tracebook.toml'), [
    'title = "Many heads"',
    '[model]', 'id = "models/wide"',
    '[prompts]', 'robots = "The robots will bring"', ''].join('\n'));
  mkdirSync(join(root, 'content'));
  writeFileSync(join(root, 'content', 'heads.md'), [
    '+++', 'title = "Heads"', '+++', '',
    '```figure attention', 'prompt = "robots"', 'layer = 1', 'head = 2', 'pickers = "all"', '```', ''].join('\n'));
  run('trace', '--offline');
  site = buildSite(root);
  browser = await launch();
});
after(async () => { await browser?.close(); site?.remove(); if (root) rmSync(root, { recursive: true, force: true }); });

const panels = (page) => page.$$eval('#figure-1 [data-tb-panel]', (gs) => gs.map((g) =>
  [g.getAttribute('data-tb-panel'), getComputedStyle(g).display !== 'none']));

test('the page carries one panel; the others load on the first pick', async () => {
  const html = readFileSync(join(site.dir, 'heads.html'), 'utf8');
  assert.equal(html.match(/data-tb-panel=/g).length, 1, 'only the figure\'s own panel is in the page');
  const file = join(site.dir, 'heads.figure-1.panels.js');
  assert.ok(statSync(file).size > html.length / 4, 'the other 19 panels are in the file');
  const { page, context, problems } = await open(browser, site.dir, 'heads.html');
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.waitForSelector('#figure-1[data-tb-ready]');
  assert.deepEqual(await panels(page), [['1 2', true]]);
  assert.equal(requests.filter((u) => u.endsWith('.panels.js')).length, 0, 'nothing loads before a pick');
  const [layer, head] = await page.locator('#figure-1 select').all();
  assert.deepEqual(await layer.evaluate((s) => [...s.options].map((o) => o.value)), ['0', '1', '2', '3', '4']);
  await layer.selectOption('4');
  await page.waitForSelector('#figure-1 [data-tb-panel="4 2"]:not([display])');
  const shown = (await panels(page)).filter(([, visible]) => visible).map(([key]) => key);
  assert.deepEqual(shown, ['4 2']);
  assert.equal((await panels(page)).length, 20, 'every panel is in the figure now');
  await head.selectOption('0');
  assert.deepEqual((await panels(page)).filter(([, v]) => v).map(([k]) => k), ['4 0']);
  assert.equal(requests.filter((u) => u.endsWith('.panels.js')).length, 1, 'the panels load once');
  assert.equal(await page.locator('#figure-1 [aria-live]').textContent(), 'layer 4, head 0');
  assert.deepEqual(problems, []);
  await context.close();
});
