// Hovering or focusing a token highlights it in every figure of the page: its box and label
// in the tokens figure, its labels in the attention map, and its row and column bands in
// the attention map and in every tile of the attention grid.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildSite, launch, open, here } from './harness.mjs';

let site, browser;
before(async () => { site = buildSite(join(here, 'site')); browser = await launch(); });
after(async () => { await browser?.close(); site?.remove(); });

/** The highlighted elements and the bands drawn, per figure. */
async function lit(page) {
  return page.evaluate(() => {
    const out = {};
    // Elements in hidden panels (the attention picker's other heads) do not count.
    const shown = (e) => !e.closest('[data-tb-panel][display="none"]');
    document.querySelectorAll('figure').forEach((f) => {
      const tokens = [...f.querySelectorAll('.tb-tok-hl')].filter(shown).map((e) => `${e.tagName}:${e.getAttribute('data-tb-tok')}`);
      const bands = [...f.querySelectorAll('.tb-band')].filter(shown).map((b) => ['x', 'y', 'width', 'height'].map((a) => +b.getAttribute(a)));
      if (tokens.length || bands.length) out[f.id] = { tokens, bands };
    });
    return out;
  });
}

test('hovering a token highlights its box, its labels and its row and column', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.hover('#figure-1 text[data-tb-tok="robots:1"]');
  const got = await lit(page);
  assert.deepEqual(got['figure-1'].tokens, ['rect:robots:1', 'text:robots:1']);
  assert.deepEqual(got['figure-5'].tokens, ['text:robots:1', 'text:robots:1']);
  // The attention map's grid: row 1 and column 1 of its 4 × 4 cells.
  const [left, top, cell] = (await page.getAttribute('#figure-5 [data-tb-panel="1 2"] [data-tb-grid]', 'data-tb-grid')).split(' ').slice(3).map(Number);
  assert.deepEqual(got['figure-5'].bands, [[left, top + cell, 4 * cell, cell], [left + cell, top, cell, 4 * cell]]);
  // Two bands in each of the attention grid's tiles (4 heads of layer 0).
  assert.equal(got['figure-6'].bands.length, 8);
  // Moving to another token moves the highlight; leaving the tokens clears it.
  await page.hover('#figure-5 [data-tb-panel="1 2"] text[data-tb-tok="robots:3"]');
  const moved = await lit(page);
  assert.deepEqual(moved['figure-1'].tokens, ['rect:robots:3', 'text:robots:3']);
  await page.hover('h1');
  assert.deepEqual(await lit(page), {});
  assert.deepEqual(problems, []);
  await context.close();
});

test('keyboard focus on a token highlights it too', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-1 rect[tabindex="0"]');
  await page.focus('#figure-1 rect[data-tb-tok="robots:2"]');
  const got = await lit(page);
  assert.deepEqual(got['figure-1'].tokens, ['rect:robots:2', 'text:robots:2']);
  assert.equal(got['figure-6'].bands.length, 8);
  await page.keyboard.press('Tab');
  assert.deepEqual((await lit(page))['figure-1'].tokens, ['rect:robots:3', 'text:robots:3']);
  assert.deepEqual(problems, []);
  await context.close();
});
