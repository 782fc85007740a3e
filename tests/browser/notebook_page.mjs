// [notebook]: an executed notebook's figures in headless Chromium, two ways (run by
// tests/notebook.sh, after python/tests/run_notebook.py):
//   node tests/browser/notebook_page.mjs OUT_DIR [SCREENSHOT_DIR]
// 1. nbconvert's HTML of the executed notebook (OUT_DIR/tour.html, and tour-dark.html with
//    JupyterLab's dark theme, seen with a dark colour scheme too): each figure shows, its
//    picker changes the drawing, its text is legible on its own background, and nothing is
//    fetched for it (nbconvert's own CDN scripts are refused, as offline).
// 2. The outputs inserted as JupyterLab and VS Code insert HTML output: innerHTML, then each
//    script re-created so that it runs (OUT_DIR/outputs.json): the declarative shadow root is
//    not attached by innerHTML, so the fragment's script attaches it; the figures show and two
//    figures' pickers move only their own figure.
// Exits non-zero naming what failed; with SCREENSHOT_DIR, saves the executed notebook's
// page at 1200 px, light and dark.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch } from './harness.mjs';

const [out, shots] = process.argv.slice(2);
if (!out) {
  console.error('usage: node notebook_page.mjs OUT_DIR [SCREENSHOT_DIR]');
  process.exit(2);
}

// What each figure of the page shows: its drawing's size, the colours of its caption and
// background, and whether its pickers change only its own drawing.
async function figures(page) {
  return page.evaluate(() => {
    const hosts = Array.from(document.querySelectorAll('tracebook-figure'));
    const art = (h) => h.shadowRoot && h.shadowRoot.querySelector('.tb-figure-art svg');
    return hosts.map((h, i) => {
      const svg = art(h);
      const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      const caption = h.shadowRoot && h.shadowRoot.querySelector('figcaption');
      const select = h.shadowRoot && h.shadowRoot.querySelector('.tb-controls select');
      let picked = null;
      if (select && select.options.length > 1) {
        const others = hosts.filter((o) => o !== h).map((o) => art(o).innerHTML);
        const before = svg.innerHTML, own = select.value;
        select.value = Array.from(select.options).find((o) => o.value !== own).value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
        const changed = svg.innerHTML !== before;
        const othersKept = hosts.filter((o) => o !== h).every((o, j) => art(o).innerHTML === others[j]);
        select.value = own;
        select.dispatchEvent(new Event('change', { bubbles: true }));
        picked = { changed, othersKept };
      }
      return {
        index: i,
        attached: !!h.shadowRoot,
        width: box.width,
        height: box.height,
        fg: caption ? getComputedStyle(caption).color : null,
        bg: getComputedStyle(h).backgroundColor,
        picked,
      };
    });
  });
}

// WCAG contrast of two `rgb(...)` colours.
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

function checkShown(list, where) {
  assert.ok(list.length >= 3, `${where}: ${list.length} figures`);
  for (const f of list) {
    assert.ok(f.attached, `${where}: figure ${f.index} has no shadow root`);
    assert.ok(f.width > 300 && f.height > 80, `${where}: figure ${f.index} does not show: ${JSON.stringify(f)}`);
    assert.ok(!/rgba\(0, 0, 0, 0\)/.test(f.bg), `${where}: figure ${f.index} has no background of its own`);
    const c = contrast(f.fg, f.bg);
    assert.ok(c >= 4.5, `${where}: figure ${f.index}'s caption ${f.fg} on ${f.bg} has contrast ${c.toFixed(2)}`);
  }
  const pickers = list.filter((f) => f.picked);
  assert.ok(pickers.length >= 2, `${where}: ${pickers.length} figures with a picker`);
  for (const f of pickers) {
    assert.deepEqual(f.picked, { changed: true, othersKept: true }, `${where}: figure ${f.index}'s picker`);
  }
}

const browser = await launch();
let failed = false;
try {
  const cases = [
    ['tour.html', 'light'],
    ['tour-dark.html', 'dark'],
  ];
  for (const [file, scheme] of cases) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 1400 }, colorScheme: scheme });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => { if (/tracebook|tb-/.test(e.stack || e.message)) errors.push(e.message); });
    await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
    await page.goto(pathToFileURL(join(out, file)).href);
    const list = await figures(page);
    checkShown(list, `${file} (${scheme})`);
    assert.deepEqual(errors, [], `${file}: errors from the figures' script`);
    console.log(`${file} (${scheme} colour scheme): ${list.length} figures shown, ${list.filter((f) => f.picked).length} pickers move their own figure only, captions legible (contrast ≥ 4.5)`);
    if (shots) {
      await page.screenshot({ path: join(shots, `notebook-${scheme}-1200.png`), fullPage: true });
    }
    await context.close();
  }

  // As JupyterLab's RenderedHTML inserts an output: innerHTML, then every script re-created.
  const outputs = JSON.parse(readFileSync(join(out, 'outputs.json'), 'utf8'));
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith('data:') && r.url() !== 'about:blank') errors.push(`request: ${r.url()}`); });
  await page.setContent('<!doctype html><meta charset="utf-8"><body style="background:#111;color:#eee"><main></main></body>');
  await page.evaluate((htmls) => {
    for (const html of htmls) {
      const node = document.createElement('div');
      node.className = 'jp-OutputArea-output';
      node.innerHTML = html;
      document.querySelector('main').appendChild(node);
      for (const old of Array.from(node.querySelectorAll('script'))) {
        const fresh = document.createElement('script');
        for (const a of Array.from(old.attributes)) fresh.setAttribute(a.name, a.value);
        fresh.textContent = old.textContent;
        old.parentNode.replaceChild(fresh, old);
      }
    }
  }, outputs.map((o) => o.html));
  const list = await figures(page);
  checkShown(list, 'outputs inserted as JupyterLab does');
  assert.deepEqual(errors, [], 'outputs inserted as JupyterLab does: errors or requests');
  console.log(`outputs inserted by innerHTML (JupyterLab, VS Code): ${list.length} figures shown on a dark page, pickers independent, nothing fetched`);
  await context.close();
} catch (e) {
  console.error(e.message);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
