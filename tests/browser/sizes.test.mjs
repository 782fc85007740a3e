// The budgets: every page of the example site, HTML + inline SVG + CSS + JS, at most 300 KB;
// the figures' script at most 20 KB unminified.
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
    for (const s of sizes) assert.ok(s.total <= 300 * 1024, `${s.page}: ${s.total} bytes`);
    assert.ok(statSync(join(site.dir, 'tracebook.js')).size <= 20 * 1024);
  } finally {
    site.remove();
  }
});
