// Long-form reading in a real browser: the series sidebar (a column on desktop, a Menu button on
// phones, with and without JavaScript), callouts in light and dark, and print.html as printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, open, tracebook, here } from './harness.mjs';

let work, dir, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tracebook-longform-'));
  const site = join(work, 'site');
  cpSync(join(here, 'site'), site, { recursive: true });
  writeFileSync(join(site, 'content/notes.md'), `+++
title = "Notes"
description = "Callouts."
weight = 50
+++

## Kinds {#kinds}

> [!NOTE]
> A note.

> [!WARNING]
> A warning.

See [the controls](controls.md) and {{ ref kinds }}.
`);
  dir = join(work, 'public');
  execFileSync(tracebook, ['build', '--root', site, '--out', dir], { stdio: 'pipe' });
  browser = await launch();
});
after(async () => { await browser?.close(); rmSync(work, { recursive: true, force: true }); });

const visible = (page, selector) => page.locator(selector).first().isVisible();

for (const javaScriptEnabled of [true, false]) {
  test(`the sidebar is a column on desktop and a menu on phones (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
    // A laptop at 1024 or 1280 px sees the series column too, beside the text.
    for (const width of [1024, 1280]) {
      const laptop = await open(browser, dir, 'notes.html', { viewport: { width, height: 800 }, javaScriptEnabled });
      assert.ok(await visible(laptop.page, '.tb-sidebar'), `the sidebar shows at ${width} px`);
      const text = await laptop.page.locator('main').boundingBox();
      const column = await laptop.page.locator('.tb-sidebar').boundingBox();
      assert.ok(column.x + column.width <= text.x + 1, `the sidebar does not cover the text at ${width} px`);
      assert.ok(text.x + text.width <= width, `the text fits beside it at ${width} px`);
      await laptop.context.close();
    }
    const wide = await open(browser, dir, 'notes.html', { viewport: { width: 1400, height: 900 }, javaScriptEnabled });
    assert.ok(await visible(wide.page, '.tb-sidebar'), 'the sidebar shows on desktop');
    assert.ok(!(await visible(wide.page, '.tb-menu-button')), 'no menu button on desktop');
    const current = await wide.page.locator('.tb-sidebar a[aria-current="page"]').textContent();
    assert.equal(current, 'Notes');
    const main = await wide.page.locator('main').boundingBox();
    const side = await wide.page.locator('.tb-sidebar').boundingBox();
    assert.ok(side.x + side.width <= main.x + 1, 'the sidebar does not cover the text');
    assert.deepEqual(wide.problems, []);
    await wide.context.close();

    const phone = await open(browser, dir, 'notes.html', { viewport: { width: 390, height: 800 }, javaScriptEnabled });
    assert.ok(!(await visible(phone.page, '.tb-sidebar')), 'hidden on a phone');
    await phone.page.locator('.tb-menu-button').click();
    assert.ok(await visible(phone.page, '.tb-sidebar'), 'the menu button opens it');
    await phone.page.locator('.tb-sidebar a', { hasText: 'Notes' }).isVisible();
    await phone.page.locator('.tb-menu-button').click();
    assert.ok(!(await visible(phone.page, '.tb-sidebar')), 'and closes it');
    // Keyboard: the checkbox behind the button takes focus and Space toggles it.
    await phone.page.locator('#tb-menu').focus();
    await phone.page.keyboard.press('Space');
    assert.ok(await visible(phone.page, '.tb-sidebar'), 'Space opens it');
    assert.deepEqual(phone.problems, []);
    await phone.context.close();
  });
}

test('callouts have their own colour in light and in dark', async () => {
  const colours = {};
  for (const colorScheme of ['light', 'dark']) {
    const { page, context, problems } = await open(browser, dir, 'notes.html', { colorScheme });
    colours[colorScheme] = await page.$$eval('.tb-callout', (els) => els.map((e) => getComputedStyle(e).borderLeftColor));
    const title = await page.locator('.tb-callout-note .tb-callout-title').textContent();
    assert.equal(title, 'Note');
    assert.deepEqual(problems, []);
    await context.close();
  }
  assert.equal(colours.light.length, 2);
  assert.notEqual(colours.light[0], colours.light[1], 'note and warning differ');
  assert.notEqual(colours.light[0], colours.dark[0], 'dark mode has its own colour');
});

test('print.html prints the series, each article on a new page, without the sidebar or controls', async () => {
  const { page, context, problems } = await open(browser, dir, 'print.html');
  await page.emulateMedia({ media: 'print' });
  const articles = await page.$$eval('.tb-print-article', (els) => els.map((e) => ({
    id: e.id, breakBefore: getComputedStyle(e).breakBefore,
  })));
  assert.deepEqual(articles.map((a) => a.id), ['controls', 'steps', 'notes']);
  assert.ok(articles.every((a) => a.breakBefore === 'page'), JSON.stringify(articles));
  assert.ok(!(await visible(page, '.tb-sidebar')), 'no sidebar in print');
  assert.equal(await page.locator('.tb-controls:visible').count(), 0, 'no controls in print');
  // Links between articles stay on the page.
  const href = await page.locator('#notes a', { hasText: 'the controls' }).getAttribute('href');
  assert.equal(href, '#controls');
  assert.deepEqual(problems, []);
  await context.close();
});
