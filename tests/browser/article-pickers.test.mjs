// The example series uses the pickers where its articles show several layers, heads or
// tokens: attention (heads of a layer), heads (every layer and head), residual (tokens) and
// logit-lens (layers). Each switches panels with JavaScript; without it the author's own
// panel is the one that shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildSite, launch, open, repo } from './harness.mjs';

let site, browser;
before(async () => { site = buildSite(repo); browser = await launch(); });
after(async () => { await browser?.close(); site?.remove(); });

const cases = [
  { page: 'attention.html', figure: '#fig-pattern', start: '3 2', pick: [['head', '0']], then: '3 0' },
  { page: 'heads.html', figure: 'figure:has([data-tb-panel="1 2"])', start: '1 2', pick: [['layer', '0'], ['head', '1']], then: '0 1' },
  { page: 'residual.html', figure: '#fig-stream', start: '12', pick: [['token', '8']], then: '8' },
  { page: 'logit-lens.html', figure: 'figure:has([data-tb-panel])', start: '3', pick: [['layer', '1']], then: '1' },
];

const shown = (page, figure) => page.$$eval(`${figure} [data-tb-panel]`, (gs) => gs
  .filter((g) => getComputedStyle(g).display !== 'none').map((g) => g.getAttribute('data-tb-panel')));

for (const c of cases) {
  test(`${c.page}: the picker switches panels, and without scripts the author's panel shows`, async () => {
    const { page, context, problems } = await open(browser, site.dir, c.page);
    const figure = page.locator(c.figure).first();
    await figure.waitFor();
    const id = await figure.getAttribute('id');
    const sel = `#${id}`;
    await page.waitForSelector(`${sel}[data-tb-ready]`);
    assert.deepEqual(await shown(page, sel), [c.start]);
    for (const [name, value] of c.pick) {
      await page.locator(`${sel} .tb-control`, { hasText: name }).locator('select').selectOption(value);
    }
    assert.deepEqual(await shown(page, sel), [c.then]);
    assert.match(await page.locator(`${sel} figcaption [data-tb-now]`).textContent(), /^Shown now: /);
    assert.deepEqual(problems, []);
    await context.close();

    const off = await open(browser, site.dir, c.page, { javaScriptEnabled: false });
    assert.deepEqual(await shown(off.page, sel), [c.start]);
    assert.equal(await off.page.locator(`${sel} select`).count(), 0);
    await off.context.close();
  });
}

test('the residual picker names each token by its text', async () => {
  const { page, context } = await open(browser, site.dir, 'residual.html');
  await page.waitForSelector('#fig-stream[data-tb-ready]');
  const options = await page.locator('#fig-stream select').evaluate((s) => [...s.options].map((o) => o.text));
  assert.equal(options.length, 13);
  assert.equal(options[8], '8: ·it');
  await page.locator('#fig-stream select').selectOption('8');
  assert.equal(await page.locator('#fig-stream [aria-live]').textContent(), 'token 8: ·it');
  if (process.env.TB_SCREENSHOT) await page.locator('#fig-stream').screenshot({ path: process.env.TB_SCREENSHOT });
  await context.close();
});
