// [live-claims] item 2: after a reader's run, every checked sentence of the page is asked again
// of the reader's text by the live module (the build's evaluator, compiled to WebAssembly):
// its mark says holds, does not hold (with the values) or about the author's prompt only, the
// page sums them up, and Back puts the author's marks back. On the fixture site with [live] on,
// a page of four claims about "The robots will bring": one that carries over and fails on a
// longer text, one that carries over and holds, one about a literal word of the author's
// prompt, and one that finds " robots" by its text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, cpSync, writeFileSync, rmSync, mkdirSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, tracebook, here, repo, serve, runLive } from './harness.mjs';
import { resolve } from 'node:path';

const run = (args) => execFileSync(tracebook, args, { stdio: 'pipe', encoding: 'utf8' });
let work, server, origin, browser, example, exampleOrigin, exampleDir;
const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const claimsReference = join(target, 'release', 'examples', 'claims_reference');

const PAGE = `+++
title = "Claims"
description = "Sentences checked against the trace, and again against the reader's."
weight = 30
+++

\`\`\`figure tokens
prompt = "robots"
caption = "The prompt's tokens."
\`\`\`

The prompt is short{{ claim robots count() < 5 }}. The model gives its top guess some
probability{{ claim robots prob(guess(1)) > 0 }}. Its second word is " robots"{{ claim robots token(1) == " robots" }},
which comes right after the first{{ claim robots pos(" robots") == first() + 1 }}.

\`\`\`figure layernorm
prompt = "robots"
layer = 0
token = 'pos(" robots")'
caption = "The vector of “ robots” before and after the first layernorm."
\`\`\`
`;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-live-claims-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  mkdirSync(join(site, 'models'));
  cpSync(join(repo, 'models', 'tracebook-tiny-en'), join(site, 'models', 'tracebook-tiny-en'), { recursive: true });
  writeFileSync(join(site, 'tracebook.toml'), readFileSync(join(site, 'tracebook.toml'), 'utf8') + '\n[live]\nenabled = true\nprecision = "int8"\n');
  writeFileSync(join(site, 'content', 'claims.md'), PAGE);
  run(['trace', '--root', site]);
  run(['build', '--root', site, '--out', join(work, 'public')]);
  server = await serve(join(work, 'public'));
  origin = `http://127.0.0.1:${server.address().port}`;
  // The example site, as the README's first command builds it.
  exampleDir = join(work, 'example');
  run(['build', '--root', repo, '--out', exampleDir]);
  example = await serve(exampleDir);
  exampleOrigin = `http://127.0.0.1:${example.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  example?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const marks = (page) => page.evaluate(() => Array.from(document.querySelectorAll('.tb-claim')).map((m) => ({
  live: m.getAttribute('data-live'), sign: m.textContent, title: m.getAttribute('title'),
  name: m.getAttribute('aria-label'),
})));
const summary = (page) => page.evaluate(() => {
  const s = document.querySelector('.tb-live-prose .tb-live-claims');
  return s ? s.textContent.trim() : null;
});

test('the reader\'s text re-checks each sentence, the page sums it up, and Back restores the author\'s marks', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${origin}/claims.html`);
  const author = await marks(page);
  assert.deepEqual(author.map((m) => [m.live, m.sign]), [[null, '✓'], [null, '✓'], [null, '✓'], [null, '✓']]);

  await page.locator('figure .tb-try').first().click();
  assert.equal(await runLive(page, 'A small dog ran across the green field'), '');
  await page.waitForFunction(() => document.querySelector('.tb-claim[data-live]'), null, { timeout: 60000 });
  const mine = await marks(page);
  assert.deepEqual(mine.map((m) => [m.live, m.sign]), [['fails', '✗'], ['holds', '✓'], ['author', '○'], ['author', '○']]);
  assert.equal(mine[0].title, "Does not hold on your text: `count()` is 8, not < 5");
  assert.match(mine[1].title, /^Holds on your text too: /);
  assert.ok(mine.every((m) => m.name === m.title), 'the verdict is each mark\'s accessible name');
  assert.equal(mine[2].title, 'About the author’s prompt only: it names a place in the author’s text');
  assert.equal(mine[3].title, 'About the author’s prompt only: your text does not have “ robots” exactly once');
  assert.equal(await summary(page), 'Checked again on your text: ✓ 1, ✗ 1, ○ 2 about the author’s prompt only.');
  // " robots" is not in this text: the layernorm figure falls back to its default token and
  // says so, and states no rule it did not follow.
  const fallback = await page.evaluate(() => {
    const figure = Array.from(document.querySelectorAll('figure.tb-live-shown')).find((f) => f.querySelector('.tbf-layernorm'));
    return figure && figure.querySelector('.tb-live-caption').textContent;
  });
  assert.ok(fallback.includes('Drawn without a setting') && !fallback.includes('Picked in your text'), fallback);

  // A text with " robots" once: the sentence that finds it by its text is asked, and holds.
  assert.equal(await runLive(page, 'Two robots will bring'), '');
  await page.waitForFunction(() => document.querySelectorAll('.tb-claim[data-live="holds"]').length === 3, null, { timeout: 60000 });
  assert.deepEqual((await marks(page)).map((m) => m.live), ['holds', 'holds', 'author', 'holds']);
  assert.equal(await summary(page), 'Checked again on your text: ✓ 3, ✗ 0, ○ 1 about the author’s prompt only.');
  // The layernorm figure picks " robots" in the reader's text by the author's rule, and says so.
  const norm = await page.evaluate(() => {
    const figure = Array.from(document.querySelectorAll('figure.tb-live-shown')).find((f) => f.querySelector('.tbf-layernorm'));
    return figure && figure.querySelector('.tb-live-caption').textContent;
  });
  assert.ok(norm && norm.includes('Picked in your text by the author’s rule (token: pos(" robots");'), norm);
  assert.match(norm, /robots/);

  await page.locator('.tb-live-back').first().click();
  assert.deepEqual(await marks(page), author);
  assert.equal(await summary(page), null);
  assert.deepEqual(problems, []);
  await context.close();
});

/** The example's pages with live data, by file name. */
const examplePages = () => readdirSync(exampleDir).filter((f) => f.endsWith('.live.json')).map((f) => f.replace('.live.json', '.html'));

/** A page of the example in `context`, watched for page errors and dialogs (a reader's text
 * that ran as script would open one). */
async function openExample(context, file) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => { problems.push(`a dialog opened: ${d.message()}`); d.dismiss(); });
  await page.goto(`${exampleOrigin}/${file}`);
  return { page, problems };
}

// Every page of the example with checked sentences and a live figure: two readers' sentences
// typed in Chromium, and the marks the page shows for the prompt they replaced equal the
// verdicts the same session gives natively (examples/claims_reference over the site's own
// browser model): the evaluator in the browser module is the build's, value for value.
const SENTENCES = [
  "The dog didn't cross the street because it was too tired",
  'My sister bought a new bike and rode it to the park',
];

// Two verdicts' details agree when their words are the same and every number is within a
// hundredth of the other (relative) or 1e-4: an experiment's claim reads differences of
// probabilities of the ablated runs, where wasm's and x86's orders of summation show in the
// fourth digit, and a claim that two sums of f32 terms of size 1 to 10 are equal (integrated
// gradients add up to the change in log-probability) prints their leftover, f32 noise of
// about 1e-5 whose every digit differs between the two.
function sameDetail(a, b) {
  const number = /-?\d+(?:\.\d+)?(?:e-?\d+)?/g;
  if (a.replace(number, '#') !== b.replace(number, '#')) return false;
  const x = a.match(number) || [], y = b.match(number) || [];
  return x.every((s, i) => Math.abs(+s - +y[i]) <= 1e-4 + 1e-2 * Math.abs(+y[i]));
}

test('on every page of the example the browser\'s verdicts equal the native session\'s', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  let compared = 0, decided = 0;
  for (const file of examplePages()) {
    const { page, problems } = await openExample(context, file);
    if (!(await page.locator('.tb-claim[data-claim]').count()) || !(await page.locator('figure .tb-try').count())) {
      await page.close();
      continue;
    }
    const data = JSON.parse(readFileSync(join(exampleDir, file.replace('.html', '.live.json')), 'utf8'));
    const figureId = await page.locator('figure:has(.tb-try)').first().getAttribute('id');
    const prompt = data.figures.find((f) => f.id === figureId).prompt;
    const spec = data.prompts[prompt];
    const claims = await page.evaluate((p) => Array.from(document.querySelectorAll('.tb-claim[data-claim]'))
      .filter((m) => m.getAttribute('data-claim-prompt') === p).map((m) => m.getAttribute('data-claim')), prompt);
    const request = JSON.stringify({ prompt, options: { ...spec.options }, sentences: SENTENCES, claims });
    const native = JSON.parse(execFileSync(claimsReference, [join(exampleDir, 'live'), spec.manifest || 'manifest.json'],
      { input: request, encoding: 'utf8' }));
    await page.locator('figure .tb-try').first().click();
    for (const [i, sentence] of SENTENCES.entries()) {
      assert.equal(await runLive(page, sentence), '', `${file}: ${sentence}`);
      await page.waitForFunction(() => document.querySelector('.tb-claim[data-live]'), null, { timeout: 60000 });
      const shown = await page.evaluate((p) => Array.from(document.querySelectorAll('.tb-claim[data-claim]'))
        .filter((m) => m.getAttribute('data-claim-prompt') === p)
        .map((m) => ({ live: m.getAttribute('data-live'), title: m.getAttribute('title'), why: m.getAttribute('data-live-why') })), prompt);
      assert.equal(shown.length, native[i].length, file);
      shown.forEach((s, k) => {
        assert.equal(s.live, native[i][k].live, `${file}: \`${claims[k]}\` on "${sentence}"`);
        if (s.live !== 'author') {
          const detail = s.title.slice(s.title.indexOf(': ') + 2);
          assert.ok(sameDetail(detail, native[i][k].detail), `${file}: \`${claims[k]}\`: ${s.title} / ${native[i][k].detail}`);
        }
        assert.equal(s.why, native[i][k].why || null, `${file}: \`${claims[k]}\``);
        compared += 1;
        if (s.live !== 'author') decided += 1;
      });
    }
    assert.deepEqual(problems, [], file);
    await page.close();
  }
  console.log(`# ${compared} marks compared with the native session, ${decided} of them decided on a reader's sentence`);
  assert.ok(compared > 100 && decided > 40, `${compared} compared, ${decided} decided`);
  await context.close();
});

// [live-claims] item 6: a reader's long or hostile sentence on every live page of the example.
// Figures adapt (an option that does not fit is set aside, and the caption says so), and no
// message the page shows the reader is in the author's syntax: no `code`, no hint, no
// command, no `key = value` (nor any caption: no code, hint or command).
const HOSTILE = [
  'The old lighthouse keeper walked slowly along the rocky shore every evening, counting the '
    + 'boats that came home late, and wrote their names in a small book that nobody read',
  '🙂 שלום <|endoftext|> "quoted" \'single\' <script>alert(1)</script> & é',
  'Hi',
];

test('long and hostile sentences on every live page: figures adapt and every message speaks to the reader', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  let runs = 0, adapted = 0;
  for (const file of examplePages()) {
    const { page, problems } = await openExample(context, file);
    if (!(await page.locator('figure .tb-try').count())) { await page.close(); continue; }
    await page.locator('figure .tb-try').first().click();
    for (const sentence of HOSTILE) {
      const error = await runLive(page, sentence);
      const read = (selector) => page.evaluate((s) => Array.from(document.querySelectorAll(s)).map((e) => e.textContent), selector);
      const messages = [error, ...(await read('.tb-live-error, .tb-live-status'))];
      // Captions describe the figure (a formula's "√dₕ = 5.66" is the figure's, not syntax).
      const captions = await read('.tb-live-caption, .tb-live-prose');
      const check = (texts, bad) => texts.forEach((text) => bad.forEach((b) => assert.ok(!text.includes(b),
        `${file}, "${sentence.slice(0, 20)}…": the reader is shown ${JSON.stringify(b)}: ${text}`)));
      check(messages, ['`', 'hint:', 'tracebook ', ' = ']);
      check(captions, ['`', 'hint:', 'tracebook ']);
      adapted += await page.locator('.tb-live-caption', { hasText: 'Drawn without a setting' }).count();
      runs += 1;
    }
    assert.deepEqual(problems, [], file);
    await page.close();
  }
  console.log(`# ${runs} runs, ${adapted} captions that set an option aside`);
  assert.ok(runs >= 30 && adapted > 0, `${runs} runs, ${adapted} adapted`);
  await context.close();
});

// [model] item 3 and [live-claims]: on the induction article (its prompts run on
// tracebook-mini-en, in the browser too), a reader who says a sentence twice sees the copy
// (the second copy's loss falls, the sentences that ask where a token was said before are
// asked of their text and hold), and a reader who says it once is told which token their text
// does not repeat. A screenshot of the first is kept when TRACEBOOK_SCREENSHOTS names a folder.
test('the induction article re-checks its copying sentences on a sentence the reader repeats', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 1400 } });
  const { page, problems } = await openExample(context, 'induction.html');
  const copying = () => page.evaluate(() => Array.from(document.querySelectorAll('.tb-claim[data-claim*="earlier(last())"]'))
    .map((m) => ({ live: m.getAttribute('data-live'), title: m.getAttribute('title'), prompt: m.getAttribute('data-claim-prompt') })));
  // The figure of the loss on a sentence said twice ("cars").
  await page.locator('figure:has(.tbf-loss) .tb-try').nth(1).click();
  assert.equal(await runLive(page, 'My sister bought a new bike. My sister bought a new bike.'), '');
  await page.waitForFunction(() => document.querySelector('.tb-claim[data-live]'), null, { timeout: 60000 });
  const repeated = (await copying()).filter((c) => c.prompt === 'cars');
  assert.ok(repeated.length >= 1, JSON.stringify(repeated));
  for (const c of repeated) assert.equal(c.live, 'holds', c.title);
  if (process.env.TRACEBOOK_SCREENSHOTS) {
    const figure = page.locator('figure:has(.tbf-loss)').nth(1);
    await figure.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(process.env.TRACEBOOK_SCREENSHOTS, 'induction-live-1200.png') });
  }
  assert.equal(await runLive(page, 'My sister bought a new bike and rode it to the park'), '');
  await page.waitForFunction(() => document.querySelector('.tb-claim[data-live="author"][data-claim*="earlier"]'), null, { timeout: 60000 });
  const once = (await copying()).filter((c) => c.prompt === 'cars');
  for (const c of once) {
    assert.equal(c.live, 'author', c.title);
    assert.equal(c.title, 'About the author’s prompt only: your text does not say “ park” twice', c.title);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
