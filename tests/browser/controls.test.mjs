// The figure controls in a real browser: the numbers the page shows are the numbers Rust
// computes over all V logits (examples/sampler_reference.rs), keyboard and screen-reader
// access work, and without JavaScript the page shows the static figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildSite, expected, launch, open, close, here } from './harness.mjs';

const siteRoot = join(here, 'site');
const trace = join(siteRoot, 'traces/robots.json');
let site, browser, rust;

before(async () => {
  site = buildSite(siteRoot);
  browser = await launch();
  rust = expected(trace, ['1,0,off', '0.5,0,off', '1.5,0,off', '0,0,off', '1.3,0,off', '2,0,off',
    '0.8,0,0.9', '0.8,3,0.9', '0.8,0,0.5', '1.5,0,0.9', '1,0,0.95', '0.8,12,off', '0.8,256,off']);
});
after(async () => { await browser?.close(); site?.remove(); });

/** The bars of figure `n`, by row: the probability the script drew and the number shown. */
async function bars(page, n) {
  return page.$$eval(`#figure-${n} [data-tb-bar]`, (els) => els
    .map((e) => {
      const r = e.getAttribute('data-tb-bar');
      const col = e.closest('[data-tb-col]');
      const scope = col || e.closest('svg');
      return {
        row: +r,
        col: col ? +col.getAttribute('data-tb-col') : 0,
        value: e.hasAttribute('data-tb-value') ? +e.getAttribute('data-tb-value') : null,
        text: scope.querySelector(`[data-tb-pct="${r}"]`).textContent,
        cut: e.classList.contains('tbf-cut') || e.parentElement.getAttribute('data-tb-g') === 'cut',
      };
    })
    .sort((a, b) => a.col - b.col || a.row - b.row));
}

/** Moves figure `n`'s slider `name` to stop `index` with the keyboard. */
async function slide(page, n, name, index) {
  const input = page.locator(`#figure-${n} .tb-control`, { hasText: name }).locator('input');
  await input.focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < index; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await input.inputValue(), String(index));
}

async function typeTopK(page, n, k) {
  const input = page.locator(`#figure-${n} input[type="number"]`);
  await input.fill(String(k));
}

function assertDrawn(got, want, label) {
  for (const bar of got) {
    assert.ok(close(bar.value, want.drawn[bar.row]),
      `${label}: row ${bar.row} drew ${bar.value}, Rust says ${want.drawn[bar.row]}`);
    assert.equal(bar.cut, want.drawn[bar.row] === 0, `${label}: row ${bar.row} cut`);
  }
}

test('the temperature slider gives the probabilities Rust computes', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-2[data-tb-ready]');
  for (const [t, stop] of [['0.5', 5], ['1.5', 15], ['0', 0], ['2', 20], ['1', 10]]) {
    await slide(page, 2, 'temperature', stop);
    const got = await bars(page, 2);
    assert.equal(got.length, 10);
    assertDrawn(got, rust[`${t},0,off`], `T = ${t}`);
    const output = await page.locator('#figure-2 .tb-control output').first().textContent();
    assert.equal(output, t);
  }
  // Back at T = 1 the percentages are the build's own, character for character.
  const staticTexts = await page.$$eval('#figure-2 [data-tb-pct]', (els) => els.map((e) => e.textContent));
  const fresh = await open(browser, site.dir, 'controls.html', { javaScriptEnabled: false });
  assert.deepEqual(await fresh.page.$$eval('#figure-2 [data-tb-pct]', (els) => els.map((e) => e.textContent)), staticTexts);
  await fresh.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('the temperature figure redraws its last column', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-3[data-tb-ready]');
  await slide(page, 3, 'temperature', 13);
  const got = await bars(page, 3);
  const last = got.filter((b) => b.col === 2);
  assert.equal(last.length, 8);
  for (const bar of last) assert.ok(close(bar.value, rust['1.3,0,off'].probs[bar.row]), `row ${bar.row}`);
  for (const bar of got.filter((b) => b.col === 0)) assert.ok(close(bar.value, rust['0.5,0,off'].probs[bar.row]));
  assert.equal(await page.locator('#figure-3 [data-tb-head="2"]').textContent(), 'T = 1.3');
  assert.deepEqual(problems, []);
  await context.close();
});

test('top-k and top-p keep the right tokens, with the right weights', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-4[data-tb-ready]');
  // The figure starts at the prompt's rules: temperature 0.8, top_p 0.9.
  assert.equal(await page.locator('#figure-4').getAttribute('data-tb-state'), null);
  await typeTopK(page, 4, 3);
  assertDrawn(await bars(page, 4), rust['0.8,3,0.9'], 'top_k 3');
  const kept = (await bars(page, 4)).filter((b) => !b.cut).map((b) => b.row);
  assert.deepEqual(kept, [0, 1, 2]);
  await typeTopK(page, 4, 0);
  assertDrawn(await bars(page, 4), rust['0.8,0,0.9'], 'top_p 0.9');
  await slide(page, 4, 'top-p', 9); // stops 0.05, 0.1, …: index 9 is 0.5
  assertDrawn(await bars(page, 4), rust['0.8,0,0.5'], 'top_p 0.5');
  const note = async () => page.locator('#figure-4 [data-tb-note="0"]').textContent();
  assert.match(await note(), new RegExp(`^${rust['0.8,0,0.5'].survivors} of 50,257 tokens survive`));
  // Past the embedded head: thousands of survivors, counted at build time over all V.
  await slide(page, 4, 'temperature', 15);
  await slide(page, 4, 'top-p', 17);
  const wide = rust['1.5,0,0.9'];
  assert.ok(wide.survivors > 256, `${wide.survivors}`);
  assertDrawn(await bars(page, 4), wide, 'T 1.5, top_p 0.9');
  const shown = wide.survivors.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  assert.match(await note(), new RegExp(`^${shown} of 50,257 tokens survive`));
  // next-token takes the same rules: top-k 12 at T 0.8 leaves bars 0–9 drawn with p/mass.
  await slide(page, 2, 'temperature', 8);
  await typeTopK(page, 2, 12);
  assertDrawn(await bars(page, 2), rust['0.8,12,off'], 'next-token top_k 12');
  assert.deepEqual(problems, []);
  await context.close();
});

test('controls work by keyboard, show focus and announce changes', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-2[data-tb-ready]');
  const slider = page.locator('#figure-2 input[type="range"]').first();
  await slider.focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'temperature 0.9');
  const outline = await slider.evaluate((e) => getComputedStyle(e).outlineStyle);
  assert.notEqual(outline, 'none');
  const live = page.locator('#figure-2 [aria-live="polite"]');
  assert.match(await live.textContent(), /^temperature 0\.9: 50,257 tokens survive; the likeliest is drawn with /);
  await page.locator('#figure-2 .tb-reset').click();
  assert.equal(await slider.inputValue(), '10');
  assert.deepEqual(problems, []);
  await context.close();
});

test('reduced motion turns off the bar transitions', async () => {
  const { page, context } = await open(browser, site.dir, 'controls.html', { reducedMotion: 'reduce' });
  const duration = await page.locator('#figure-2 [data-tb-bar="0"]').evaluate((e) => getComputedStyle(e).transitionDuration);
  assert.equal(duration, '0s');
  await context.close();
});

test('without JavaScript the page shows the static figures and no controls', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html', { javaScriptEnabled: false });
  assert.equal(await page.locator('.tb-controls').count(), 0);
  assert.equal(await page.locator('figure svg').count(), 7);
  const got = await bars(page, 2);
  assert.equal(got.length, 10);
  const want = rust['1,0,off'];
  const pct = (p) => (p * 100 >= 0.995 ? (p * 100).toFixed(1) : (p * 100).toFixed(2)) + '%';
  got.forEach((b) => assert.equal(b.text, pct(want.probs[b.row])));
  assert.deepEqual(problems, []);
  await context.close();
});

// format::percent, as the page writes it.
const pct = (p) => {
  const x = p * 100;
  if (p === 0) return '0%';
  if (x >= 99.95) return '100%';
  if (x >= 0.995) return x.toFixed(1) + '%';
  if (x >= 0.005) return x.toFixed(2) + '%';
  return '<0.01%';
};

test('a top-k beyond the stored candidates says so, with the mass outside them', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-2[data-tb-ready]');
  const hint = await page.locator('#figure-2 .tb-control', { hasText: 'top-k' }).textContent();
  assert.match(hint, /at most 256 \(the candidates stored\)/);
  const limit = page.locator('#figure-2 [data-tb-limit]');
  assert.equal(await limit.textContent(), '');
  await slide(page, 2, 'temperature', 8);
  await typeTopK(page, 2, 1000);
  // What is drawn is top-k 256, the most the page can keep, exactly as Rust computes it...
  const want = rust['0.8,256,off'];
  assertDrawn(await bars(page, 2), want, 'top_k 1000 as 256');
  // ...and the page says so, with the probability the 256 hold and the rest of V holds.
  const said = await limit.textContent();
  assert.equal(said, `top-k 1,000 is more than the 256 likeliest tokens this page stores, so it acts as ` +
    `top-k 256: they hold ${pct(want.mass)} of the probability at temperature 0.8; the other 50,001 ` +
    `tokens hold ${pct(1 - want.mass)}. `);
  assert.ok(await limit.isVisible());
  assert.ok((await page.locator('#figure-2 [aria-live="polite"]').textContent()).startsWith(said));
  // Once the reader leaves the box, it shows the top-k that acts; the note stays.
  const box = page.locator('#figure-2 input[type="number"]');
  await box.blur();
  assert.equal(await box.inputValue(), '256');
  assert.equal(await limit.textContent(), said);
  await typeTopK(page, 2, -5);
  await box.blur();
  assert.equal(await box.inputValue(), '0', 'a negative top-k is off');
  await typeTopK(page, 2, 256);
  assert.equal(await limit.textContent(), '');
  assert.deepEqual(problems, []);
  await context.close();
});

test('captions say what is shown once a control moves, and are the author\'s again on reset', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-4[data-tb-ready]');
  const now = page.locator('#figure-4 figcaption [data-tb-now]');
  assert.equal(await now.count(), 0);
  await typeTopK(page, 4, 3);
  assert.equal(await now.textContent(),
    'Shown now: temperature 0.8, top_k 3, top_p 0.9; the caption describes temperature 0.8, top_p 0.9. ');
  // The caption's own words stay, before the note; the model credit after it.
  const caption = await page.locator('#figure-4 figcaption').textContent();
  assert.match(caption, /Which tokens survive the prompt's own sampling rules\. Shown now: .* Traced with/);
  await page.locator('#figure-4 .tb-reset').click();
  await typeTopK(page, 4, 0);
  assert.equal(await now.count(), 0);
  await slide(page, 3, 'temperature', 13);
  assert.equal(await page.locator('#figure-3 figcaption [data-tb-now]').textContent(),
    'Shown now: temperature 1.3 in the last column; the caption describes temperature 2 in the last column. ');
  assert.deepEqual(problems, []);
  await context.close();
});

test('"/" focuses the search box from a slider or a picker, but is typed into a text box', async () => {
  const { page, context, problems } = await open(browser, site.dir, 'controls.html');
  await page.waitForSelector('#figure-2[data-tb-ready]');
  const search = page.locator('form.tb-search input');
  const focused = () => page.evaluate(() => document.activeElement === document.querySelector('form.tb-search input'));
  await page.locator('#figure-2 input[type="range"]').first().focus();
  await page.keyboard.press('/');
  assert.ok(await focused(), 'from the temperature slider');
  assert.equal(await search.inputValue(), '');
  await page.locator('#figure-5 select').first().focus();
  await page.keyboard.press('/');
  assert.ok(await focused(), 'from a picker');
  await page.locator('#figure-2 .tb-reset').focus();
  await page.keyboard.press('/');
  assert.ok(await focused(), 'from a button');
  await search.fill('a/b');
  await page.keyboard.press('/');
  assert.equal(await search.inputValue(), 'a/b/');
  assert.deepEqual(problems, []);
  await context.close();
});
