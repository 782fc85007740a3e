// Page weight of a built site: each page's HTML plus every stylesheet and script it loads
// (inline SVG and the figures' JSON are part of the HTML). Run directly to print a table:
//   node tests/browser/sizes.mjs [SITE_ROOT]   (default: the example site at the repo root)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSite, repo } from './harness.mjs';

/** [{ page, html, assets, total }] for every .html file under `dir`, in bytes. */
export function pageSizes(dir) {
  const pages = [];
  const walk = (d) => readdirSync(d).forEach((f) => {
    const p = join(d, f);
    if (statSync(p).isDirectory()) walk(p);
    else if (f.endsWith('.html')) pages.push(p);
  });
  walk(dir);
  return pages.sort().map((p) => {
    const html = readFileSync(p, 'utf8');
    const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    const assets = refs.reduce((n, r) => n + statSync(resolve(dirname(p), r)).size, 0);
    const size = Buffer.byteLength(html);
    return { page: p.slice(dir.length + 1), html: size, assets, total: size + assets };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const site = buildSite(process.argv[2] || repo);
  const kb = (n) => (n / 1024).toFixed(1);
  console.log('| page | HTML (KB) | CSS + JS (KB) | total (KB) |\n| --- | ---: | ---: | ---: |');
  for (const s of pageSizes(site.dir)) console.log(`| ${s.page} | ${kb(s.html)} | ${kb(s.assets)} | ${kb(s.total)} |`);
  console.log(`\ntracebook.js: ${statSync(join(site.dir, 'tracebook.js')).size} bytes`);
  site.remove();
}
