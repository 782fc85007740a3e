// Pickers switch between the attention panels drawn at build time; the generation
// figure's step slider replays the loop. Both announce what they show.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildSite, launch, open, here } from './harness.mjs';

let site, browser;
before(async () => { site = buildSite(join(here, 'site')); browser = await launch(); });
after(async () => { await browser?.close(); site?.remove(); });

const visiblePanels = (page) => page.$$eval('#figure-5 [data-tb-panel]', (gs) => gs
  .filter((g) => getComputedStyle(g).display !== 'none').map((g) => g.getAttribute('data-tb-panel')));

test('layer and head pickers show one build-time panel at a time', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-5[data-tb-ready]');
  assert.deepEqual(await visiblePanels(page), ['1 2']);
  const [layer, head] = await page.locator('#figure-5 select').all();
  assert.deepEqual(await layer.evaluate((s) => [...s.options].map((o) => o.value)), ['0', '1', '2', '3']);
  await head.focus();
  await page.keyboard.press('ArrowDown'); // head 3, by keyboard
  assert.deepEqual(await visiblePanels(page), ['1 3']);
  await layer.selectOption('3');
  assert.deepEqual(await visiblePanels(page), ['3 3']);
  assert.equal(await page.locator('#figure-5 [aria-live]').textContent(), 'layer 3, head 3');
  assert.equal(await page.locator('#figure-5 figcaption [data-tb-now]').textContent(),
    'Shown now: layer 3, head 3; the caption describes layer 1, head 2. ');
  // The highlight follows into the panel on show.
  await page.hover('#figure-1 text[data-tb-tok="robots:2"]');
  const bands = await page.$$eval('#figure-5 [data-tb-panel="3 3"] .tb-band', (b) => b.length);
  assert.equal(bands, 2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('without JavaScript only the figure\'s own panel shows', async () => {
  const { page, context } = await open(browser, site.dir, 'controls.html', { javaScriptEnabled: false });
  assert.deepEqual(await visiblePanels(page), ['1 2']);
  await context.close();
});

test('the step slider replays the generation', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-7[data-tb-ready]');
  const full = await page.locator('#figure-7 [data-tb-gen]').textContent();
  const slider = page.locator('#figure-7 input[type="range"]');
  await slider.focus();
  await page.keyboard.press('Home');
  const hidden = () => page.$$eval('#figure-7 svg [visibility="hidden"]', (e) => e.length);
  const firstRow = await page.$$eval('#figure-7 svg [visibility="visible"]', (e) => e.length);
  assert.ok(firstRow >= 3 && (await hidden()) >= 3 * firstRow, `${firstRow} visible, ${await hidden()} hidden`);
  const one = await page.locator('#figure-7 [data-tb-gen]').textContent();
  assert.ok(full.startsWith(one) && one.length < full.length, `${one} / ${full}`);
  assert.match(await page.locator('#figure-7 [aria-live]').textContent(), /^step 1 of 4: /);
  await page.keyboard.press('End');
  assert.equal(await hidden(), 0);
  assert.equal(await page.locator('#figure-7 [data-tb-gen]').textContent(), full);
  assert.deepEqual(problems, []);
  await context.close();
});
