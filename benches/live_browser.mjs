// The browser half of benches/live.sh: in headless Chromium, on a site served from 127.0.0.1,
//   forward  SITE_URL N       median of N traced forward passes over 16 tokens (ms)
//   redraw   PAGE_URL TEXT    "Try" → figures redrawn, first with an empty cache (download),
//                             then on a new page load with the model cached, then Run →
//                             redrawn after 3 s of typing, then a second prompt (ms)
// Prints one JSON object.
import { chromium } from '../tests/browser/node_modules/playwright-core/index.mjs';

const [what, url, arg] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
});
const page = await browser.newPage();
await page.goto(url);
let result;
if (what === 'forward') {
  result = await page.evaluate(async (runs) => {
    const base = new URL('live/', location.href);
    const manifest = await (await fetch(new URL('manifest.json', base))).json();
    const glue = await import(new URL(manifest.glue, base).href);
    const wasm = await (await fetch(new URL(manifest.module.file, base))).arrayBuffer();
    await glue.default({ module_or_path: wasm });
    const get = (name) => fetch(new URL(name, base));
    const weights = new Uint8Array(await (await get(manifest.weights.file)).arrayBuffer());
    const config = await (await get(manifest.config)).text();
    const tokenizer = manifest.tokenizer ? await (await get(manifest.tokenizer)).text() : undefined;
    let t = performance.now();
    const live = new glue.Live(manifest.model_id, config, weights, tokenizer);
    const load = performance.now() - t;
    const ids = Array.from({ length: 16 }, (_, i) => 464 + i * 37);
    const times = [];
    live.forward(ids);
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      live.forward(ids);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { tokens: 16, runs, median_ms: times[runs >> 1], min_ms: times[0], model_load_ms: load };
  }, +arg || 21);
} else {
  const run = async () => {
    const t = Date.now();
    await page.locator('figure .tb-try').first().click();
    await page.locator('.tb-live-input').first().fill(arg);
    await page.locator('.tb-live-run').first().click();
    await page.waitForFunction(() => document.querySelector('figure.tb-live-shown'), null, { timeout: 600000 });
    return Date.now() - t;
  };
  const first = await run();
  await page.goto(url);
  const cached = await run();
  // What a reader waits for after Run when they spent 3 s typing: the session loads in its
  // worker from the click on "Try".
  await page.goto(url);
  await page.locator('figure .tb-try').first().click();
  await page.waitForTimeout(3000);
  await page.locator('.tb-live-input').first().fill(arg);
  let typed = Date.now();
  await page.locator('.tb-live-run').first().click();
  await page.waitForFunction(() => document.querySelector('figure.tb-live-shown'), null, { timeout: 600000 });
  typed = Date.now() - typed;
  // Only the trace and the redraw: a second prompt in the same session.
  const form = page.locator('.tb-live-form').first();
  await form.locator('.tb-live-input').fill(arg + ' again');
  let t = Date.now();
  await form.locator('.tb-live-run').click();
  await page.waitForFunction((text) => {
    const f = document.querySelector('.tb-live-form');
    return f && !f.querySelector('.tb-live-run').disabled;
  }, null, { timeout: 600000 });
  const warm = Date.now() - t;
  result = { first_ms: first, cached_ms: cached, after_typing_ms: typed, warm_session_ms: warm };
}
console.log(JSON.stringify(result));
await browser.close();
