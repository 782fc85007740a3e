// The search box finds figures by what they draw: a token shown only in a figure's SVG
// (never in the prose or a caption) leads to that figure, with the figure's text as snippet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildSite, launch, open, here } from './harness.mjs';

let site, browser;
before(async () => { site = buildSite(join(here, 'site')); browser = await launch(); });
after(async () => { await browser?.close(); site?.remove(); });

test('a token drawn only in a figure is found, and the hit links to the figure', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  // " bring" is the prompt's last token: drawn by the tokens figure, written nowhere else.
  const prose = await page.$eval('main', (m) => {
    const copy = m.cloneNode(true);
    copy.querySelectorAll('svg, script').forEach((e) => e.remove());
    return copy.textContent;
  });
  assert.ok(!/bring/i.test(prose), 'the word is in the prose or a caption');
  await page.keyboard.press('/');
  await page.keyboard.type('bring');
  const hit = page.locator('.tb-search-results a').first();
  assert.equal(await hit.getAttribute('href'), 'controls.html#figure-1');
  assert.match(await hit.textContent(), /^ControlsIn a figure: .*bring/);
  await hit.click();
  assert.ok(page.url().endsWith('controls.html#figure-1'));
  // A caption's words find their figure too, and a word of nowhere finds nothing.
  await page.locator('form.tb-search input').fill('pick any layer');
  assert.equal(await page.locator('.tb-search-results a').first().getAttribute('href'), 'controls.html');
  await page.locator('form.tb-search input').fill('zeppelin');
  assert.equal(await page.locator('.tb-search-results a').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
