// The search box: hidden without JavaScript, its index (search-index.js) fetched only when the
// reader first focuses it, results for a word of an article, from file:// as from a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, buildSite, open, here } from './harness.mjs';
import { join } from 'node:path';

test('the index loads on first focus, and a word finds its article', async () => {
  const site = buildSite(join(here, 'site'));
  const browser = await launch();
  try {
    const { page, context, problems } = await open(browser, site.dir, 'index.html');
    const requested = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.waitForLoadState('load');
    const box = page.locator('form.tb-search input');
    assert.ok(await box.isVisible(), 'the box shows with JavaScript');
    assert.equal(await page.evaluate(() => 'TRACEBOOK_SEARCH' in window), false, 'no index before focus');
    assert.deepEqual(requested.filter((u) => u.endsWith('search-index.js')), []);
    await page.keyboard.press('/');
    await box.fill('temperature');
    await page.waitForFunction(() => document.querySelectorAll('.tb-search-results li a').length > 0);
    const first = await page.locator('.tb-search-results li a').first().getAttribute('href');
    assert.match(first, /controls\.html/);
    assert.equal(requested.filter((u) => u.endsWith('search-index.js')).length, 1);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await browser.close();
    site.remove();
  }
});
