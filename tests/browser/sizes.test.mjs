// The budgets: every page of the example site, HTML + inline SVG + CSS + JS, at most 300 KB;
// the figures' script at most 20 KB unminified. print.html is every article again, on one
// page, for printing (a reader asks for it): its budget is the articles' sum, not one page's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { buildSite, repo } from './harness.mjs';
import { pageSizes } from './sizes.mjs';

test('every page of the example site stays within 300 KB, the script within 20 KB', () => {
  const site = buildSite(repo);
  try {
    const sizes = pageSizes(site.dir);
    assert.ok(sizes.length > 3);
    const articles = sizes.filter((s) => s.page !== 'print.html' && s.page !== 'index.html' && s.page !== '404.html');
    for (const s of sizes.filter((s) => s.page !== 'print.html')) {
      assert.ok(s.total <= 300 * 1024, `${s.page}: ${s.total} bytes`);
    }
    const print = sizes.find((s) => s.page === 'print.html');
    const sum = articles.reduce((a, s) => a + s.html, 0);
    assert.ok(print.html <= sum, `print.html (${print.html} bytes) is at most the articles together (${sum})`);
    assert.ok(statSync(join(site.dir, 'tracebook.js')).size <= 20 * 1024);
  } finally {
    site.remove();
  }
});
