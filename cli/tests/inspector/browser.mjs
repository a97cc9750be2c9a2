// Drives the oxmcp inspector in a real browser (Debian's chromium, through playwright-core,
// headless): `node browser.mjs URL ERA SCREENSHOTS_DIR`. The inspector was started on the
// fixture server; this connects in era ERA, calls a tool through its form, answers an
// elicitation, follows a progress update, a log line and a task (cancelled, then one run to
// its end), and checks the protocol messages are shown. Exits 0 when all of it worked; screenshots of each step go to SCREENSHOTS_DIR.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

const [url, era, screenshots] = process.argv.slice(2);
mkdirSync(screenshots, { recursive: true });
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
let step = 0;
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const shot = (name) => page.screenshot({ path: path.join(screenshots, `${era}-${++step}-${name}.png`), fullPage: true });

try {
  await page.goto(url);
  // The command line's server is filled in; connect in the era asked.
  await page.selectOption('#era', era);
  await page.click('#connect');
  await page.waitForFunction((era) => document.querySelector('#status').textContent.includes(`(${era} era)`), era);
  await page.waitForSelector('#tools button[data-name="add"]');
  await shot('connected');

  // A tool called through the form its input schema makes.
  await page.click('#tools button[data-name="add"]');
  await page.fill('input[name="a"]', '2');
  await page.fill('input[name="b"]', '40');
  await page.click('button.run');
  await page.waitForFunction(() => document.querySelector('#result').textContent.includes('42'));
  await shot('called');

  // An elicitation, answered in the dialog.
  await page.click('#tools button[data-name="confirm"]');
  await page.click('button.run');
  await page.waitForSelector('#question[open]');
  await page.check('#question input[name="ok"]');
  await shot('asked');
  await page.click('#question-accept');
  await page.waitForFunction(() => document.querySelector('#result').textContent.includes('confirmed: {"ok":true}'));

  // Progress, then a log line.
  await page.click('#tools button[data-name="slow"]');
  await page.fill('input[name="steps"]', '3');
  await page.click('button.run');
  await page.waitForFunction(() => document.querySelector('#progress-message').textContent.startsWith('3 / 3'));
  await page.waitForFunction(() => document.querySelector('#result').textContent.includes('done'));
  await page.click('#tools button[data-name="log"]');
  await page.click('button.run');
  await page.waitForFunction(() => document.querySelector('#notifications').textContent.includes('[error]'));

  // A call run as a task: its line shows it working, and it is cancelled from there.
  await page.click('#tools button[data-name="slow_task"]');
  await page.fill('input[name="steps"]', '200');
  await page.check('input[name="as-task"]');
  await page.click('button.run');
  await page.waitForSelector('#tasks div[data-status="working"]');
  await shot('task');
  await page.click('#tasks div[data-status="working"] button.cancel');
  await page.waitForSelector('#tasks div[data-status="cancelled"]');
  // And one that runs to its end, its result shown.
  await page.fill('input[name="steps"]', '2');
  await page.click('button.run');
  await page.waitForFunction(() => document.querySelector('#result').textContent.includes('done after 2 steps'));
  await page.waitForSelector('#tasks div[data-status="completed"]');

  // Every message of the exchange, both ways.
  const messages = await page.locator('#messages').textContent();
  assert.match(messages, /→ .*"method":"tools\/call"/);
  assert.match(messages, /← .*"result"/);
  await shot('followed');
  console.log('ok');
} catch (error) {
  await shot('failed').catch(() => {});
  throw error;
} finally {
  await browser.close();
}
