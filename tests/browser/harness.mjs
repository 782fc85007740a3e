// Shared set-up for the browser tests: build a site with the tracebook binary, launch
// Debian's Chromium through playwright-core, and watch a page for console errors and for
// requests that leave the site's own files.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, statSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve, extname } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = fileURLToPath(new URL('.', import.meta.url));
export const repo = resolve(here, '../..');
// Cargo's target folder: CARGO_TARGET_DIR when set (as cargo itself reads it), else target/.
const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const bin = (name) => process.env[`TRACEBOOK_${name.toUpperCase()}`] || join(target, 'release', name);
export const tracebook = bin('tracebook');
export const reference = bin('examples/sampler_reference');

/** Builds the site at `root` into a fresh temporary folder; returns its path. */
export function buildSite(root) {
  const out = mkdtempSync(join(tmpdir(), 'tracebook-browser-'));
  const dir = join(out, 'public');
  execFileSync(tracebook, ['build', '--root', root, '--out', dir], { stdio: 'pipe' });
  return { dir, remove: () => rmSync(out, { recursive: true, force: true }) };
}

/** The probabilities Rust computes over all V logits for each `T,K,P` case. */
export function expected(trace, cases) {
  const json = execFileSync(reference, [trace, ...cases], { encoding: 'utf8' });
  return Object.fromEntries(JSON.parse(json).map((c) => [c.case, c]));
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Opens `file` of the built site `dir` in a new context; `problems` collects console errors,
 * page errors and every request outside `dir`.
 */
export async function open(browser, dir, file, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 }, ...options });
  const page = await context.newPage();
  const problems = [];
  const base = pathToFileURL(dir).href + '/';
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith(base)) problems.push(`request outside the site: ${r.url()}`); });
  await page.goto(base + file);
  return { page, context, problems };
}

/** |a − b| within 1e-9 absolute or 1e-6 relative. */
export function close(a, b) {
  return Math.abs(a - b) <= 1e-9 + 1e-6 * Math.abs(b);
}

const TYPES = {
  '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml',
  '.json': 'application/json', '.wasm': 'application/wasm',
};

/** Serves the folder `dir` on 127.0.0.1 (a free port), as a static host does; resolves to the server. */
export function serve(dir) {
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    // The sites have no favicon; Chromium asks for one anyway.
    if (path === '/favicon.ico') { res.writeHead(204); res.end(); return; }
    const file = join(dir, path);
    if (existsSync(file) && statSync(file).isFile()) {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'content-length': body.length });
      res.end(body);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

/**
 * Types `text` into the page's first live form, runs it and waits until the session has
 * drawn (Run enabled again, no progress bar); the form's error message ('' when none).
 */
export async function runLive(page, text) {
  await page.locator('.tb-live-input').first().fill(text);
  await page.locator('.tb-live-run').first().click();
  await page.waitForFunction(() => {
    const form = document.querySelector('.tb-live-form');
    return form && !form.querySelector('.tb-live-run').disabled && !form.querySelector('progress:not([hidden])');
  }, null, { timeout: 60000 });
  return page.locator('.tb-live-error').first().textContent();
}

/** The SVG of every figure of the page, by figure id. */
export async function svgs(page) {
  return page.evaluate(() => Object.fromEntries(Array.from(document.querySelectorAll('figure'))
    .map((f) => [f.id, f.querySelector('.tb-figure-art svg')?.outerHTML])));
}

// Two SVGs agree when their markup is the same and every number is equal or, where wasm and
// x86 may sum in another order, differs by at most one unit of its last printed digit.
export function sameDrawing(a, b) {
  if (a === b) return true;
  const number = /-?\d+(?:\.\d+)?/g;
  if (a.replace(number, '#') !== b.replace(number, '#')) return false;
  const x = a.match(number), y = b.match(number);
  return x.every((s, i) => {
    const places = Math.max((s.split('.')[1] || '').length, (y[i].split('.')[1] || '').length);
    return Math.abs(+s - +y[i]) <= 10 ** -places * 1.0001;
  });
}
