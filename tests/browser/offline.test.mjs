// Offline reading of a hosted site (`offline = true`): a reader loads one page from a server on
// 127.0.0.1, the service worker keeps the series, the server stops, and every page, figure and
// script still opens; a rebuild is a new version that replaces the copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync, mkdtempSync, cpSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, extname } from 'node:path';
import { launch, tracebook, here } from './harness.mjs';

const TYPES = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

/** Serves `dir` at the root; returns the server and a function that stops it for good. */
function serve(dir) {
  const sockets = new Set();
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = join(dir, path);
    if (existsSync(file) && statSync(file).isFile()) {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(readFileSync(file));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  const stop = () => new Promise((ok) => { server.close(ok); for (const s of sockets) s.destroy(); });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, stop })));
}

test('with offline = true every page opens after the server is gone', async () => {
  const work = mkdtempSync(join(tmpdir(), 'tracebook-offline-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  const config = join(site, 'tracebook.toml');
  writeFileSync(config, 'offline = true\n' + readFileSync(config, 'utf8'));
  const out = join(work, 'public');
  execFileSync(tracebook, ['build', '--root', site, '--out', out], { stdio: 'pipe' });
  const worker = readFileSync(join(out, 'sw.js'), 'utf8');
  assert.match(worker, /const VERSION = "[0-9a-f]{16}"/);
  const { server, stop } = await serve(out);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/index.html`);
    // The worker is installed and has stored the series.
    await page.evaluate(async () => { await navigator.serviceWorker.ready; });
    const stored = await page.evaluate(async () => {
      const names = await caches.keys();
      const cache = await caches.open(names[0]);
      return (await cache.keys()).length;
    });
    const pages = readdirSync(out).filter((f) => f.endsWith('.html'));
    assert.ok(stored >= pages.length + 2, `${stored} files stored`);
    await stop();
    for (const file of pages) {
      const response = await page.goto(`${origin}/${file}`);
      assert.equal(response.status(), 200, `${file} offline`);
      assert.ok((await page.title()).length > 0, `${file} has its title`);
    }
    // A page's figures and styles came from the copy too.
    await page.goto(`${origin}/controls.html`);
    const styled = await page.evaluate(() => getComputedStyle(document.body).fontFamily !== '');
    assert.ok(styled);
    const figures = await page.locator('.tb-figure svg').count();
    assert.ok(figures > 0);
    await context.close();
  } finally {
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('without offline there is no worker', () => {
  const work = mkdtempSync(join(tmpdir(), 'tracebook-offline-'));
  try {
    const out = join(work, 'public');
    execFileSync(tracebook, ['build', '--root', join(here, 'site'), '--out', out], { stdio: 'pipe' });
    assert.ok(!existsSync(join(out, 'sw.js')));
    assert.ok(!readFileSync(join(out, 'index.html'), 'utf8').includes('serviceWorker'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
