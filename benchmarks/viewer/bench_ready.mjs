// Headless Chromium for benchmarks/viewer/bench_scale.py: starts the browser once, prints
// "up", then for every URL read on stdin opens the page and prints one JSON line: ms from
// navigation to body[data-ready], to the trace read (body[data-loaded]: a first view reads
// it after the page opened), to the first timeline picture (canvas[data-ready=1]) and
// to the window summary, and each /api/ request the page made (path, ms, bytes).
// Uses playwright-core from tests/viewer/node_modules and Debian's chromium.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';

const here = fileURLToPath(new URL('.', import.meta.url));
const require = createRequire(`${here}../../tests/viewer/package.json`);
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
console.log('up');

async function measure(url) {
  const page = await browser.newPage({ viewport: { width: 1700, height: 1000 } });
  const requests = [];
  page.on('requestfinished', async (req) => {
    const u = new URL(req.url());
    if (!u.pathname.startsWith('/api/')) return;
    const t = req.timing();
    let bytes = 0;
    try { bytes = (await (await req.response()).body()).length; } catch (e) { /* gone */ }
    requests.push({ path: u.pathname, query: u.search, ms: t.responseEnd, bytes });
  });
  const start = Date.now();
  await page.goto(url);
  const out = { url };
  const wait = async (name, fn) => {
    await page.waitForFunction(fn, null, { timeout: 600000, polling: 20 });
    out[name] = Date.now() - start;
  };
  await wait('body_ready_ms', () => document.body.dataset.ready === '1');
  await wait('loaded_ms', () => !!document.body.dataset.loaded);  // the server has read the trace
  await wait('timeline_ms', () => (document.getElementById('timeline') || {}).dataset?.ready === '1');
  await wait('window_ms', () => !!(document.getElementById('window-summary') || {}).dataset?.t0);
  out.requests = requests;
  await page.close();
  return out;
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  const url = line.trim();
  if (!url) continue;
  try { console.log(JSON.stringify(await measure(url))); } catch (err) { console.log(JSON.stringify({ url, error: String(err) })); }
}
await browser.close();
