// The 404 page as GitHub Pages serves it: at any depth of a project site (/book/a/b/missing),
// with and without base_url. A Node server on 127.0.0.1 answers every missing path with
// 404.html, as Pages does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here } from './harness.mjs';

/** Serves `dir` under `/book/`, answering missing paths with its 404.html (status 404). */
function serve(dir) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.startsWith('/book/') ? join(dir, path.slice('/book/'.length)) : null;
    if (file && existsSync(file) && statSync(file).isFile()) {
      const type = file.endsWith('.css') ? 'text/css' : file.endsWith('.js') ? 'text/javascript' : 'text/html';
      res.writeHead(200, { 'content-type': type });
      res.end(req.method === 'HEAD' ? undefined : readFileSync(file));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(join(dir, '404.html')));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

async function notFoundAtDepth(baseUrl) {
  const work = mkdtempSync(join(tmpdir(), 'tracebook-404-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  const out = join(work, 'public');
  const server = await serve(out);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const args = ['build', '--root', site, '--out', out];
  if (baseUrl) args.push('--base-url', `${origin}/book/`);
  execFileSync(tracebook, args, { stdio: 'pipe' });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const response = await page.goto(`${origin}/book/a/b/missing`);
    assert.equal(response.status(), 404);
    await page.waitForFunction(() => getComputedStyle(document.body).margin !== '8px', null, { timeout: 5000 });
    const home = await page.locator('main a').getAttribute('href');
    const resolved = await page.locator('main a').evaluate((a) => a.href);
    assert.equal(resolved, `${origin}/book/index.html`, `home link ${home}`);
  } finally {
    await browser.close();
    server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

test('the 404 page is styled and links home at any depth, with base_url', () => notFoundAtDepth(true));
test('the 404 page is styled and links home at any depth, without base_url', () => notFoundAtDepth(false));
