// Browser checks of `gridscope view`, driven by tests/viewer/test_browser.py.
//   node browser_check.mjs main URL SCREENSHOT.png   -> JSON report on stdout
//   node browser_check.mjs xss  URL REGION_NAME
//   node browser_check.mjs path URL SCREENSHOT.png   (a run with a critical path)
//   node browser_check.mjs zero URL                  (a real analysis: zero metrics hidden)
//   node browser_check.mjs matrix URL                (a run of many ranks: the rank matrix)
//   node browser_check.mjs diff URL                  (a difference experiment)
//   node browser_check.mjs find URL                  (Find in the trees, resizable panes)
//   node browser_check.mjs rows URL                  (rank labels and vertical zoom at many ranks)
//   node browser_check.mjs message URL               (message hover details)
//   node browser_check.mjs names URL                 (region names inside wide bars)
//   node browser_check.mjs groups URL                (collapsible metahost groups)
//   node browser_check.mjs filter URL                (rank filter)
//   node browser_check.mjs window URL                (function and process summaries of the window)
//   node browser_check.mjs colours URL               (colour families of bars and wait bands, legend)
//   node browser_check.mjs functions URL             (function filter: grey, hide, clear)
//   node browser_check.mjs pairs URL                 (a matrix cell's messages highlighted on the timeline)
//   node browser_check.mjs aggregate URL             (a collapsed metahost group as one stacked row)
//   node browser_check.mjs aggfilter URL             (the function filter on a collapsed group's row)
//   node browser_check.mjs diffdist URL              (a difference's base/new/delta distributions)
//   node browser_check.mjs loading URL               (the page while the server reads the trace)
//   node browser_check.mjs loaderror URL             (a trace the server cannot read)
//   node browser_check.mjs shots URL DIR             (benchmarks/viewer/screenshots.py)
// Uses playwright-core with Debian's chromium (never downloads a browser).
import { chromium } from 'playwright-core';

const [mode, url, arg] = process.argv.slice(2);
const HIGHLIGHT = [255, 212, 0];
// waits for the page on a loaded, shared machine: generous (no test measures time), and a
// real failure still ends the run
const PATIENT = { timeout: 120000 };
const report = { mode, console_errors: [], page_errors: [], dialogs: [] };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});

// Opens the metric tree down to the metric KEY, clicking its ancestors' toggles from the root
// as a user does (the chain comes from the profile the page loaded).
async function revealMetric(page, key) {
  const chain = await page.evaluate(async (uniq) => {
    const { metrics } = await (await fetch('/api/profile')).json();
    const out = [];
    let m = metrics.find((x) => x.uniq === uniq);
    while (m && m.parent >= 0) { m = metrics[m.parent]; out.unshift(m.uniq); }
    return out;
  }, key);
  for (const uniq of chain) {
    const node = `#metric-tree .node[data-key="${uniq}"]`;
    if (await page.getAttribute(node, 'aria-expanded') === 'false') await page.click(`${node} .toggle`);
  }
}

async function timelineSettled(page) {
  await page.waitForFunction(() => {
    const c = document.getElementById('timeline');
    return c && c.dataset.ready === '1';
  }, null, PATIENT);
}

// Colours at a few points inside a wait-state instance's box on the canvas.
async function instanceColours(page, instance) {
  return page.evaluate((inst) => {
    const tl = window.__gridscope.timeline;
    const x0 = tl.xOf(inst.start_ns);
    const x1 = Math.max(tl.xOf(inst.end_ns), x0 + 2);
    const y = tl.yOf(inst.row);
    const xs = [x0 + (x1 - x0) * 0.3, x0 + (x1 - x0) * 0.5, x0 + (x1 - x0) * 0.7];
    const ys = [y + tl.rowH * 0.25, y + tl.rowH * 0.5];
    const out = [];
    for (const x of xs) for (const yy of ys) out.push(tl.pixelAt(x, yy));
    return out;
  }, instance);
}

// The widest exact bar on screen whose call path's category is in CATS: its row, start, end.
async function widestBar(page, cats) {
  return page.evaluate((wanted) => {
    const tl = window.__gridscope.timeline;
    let best = null;
    for (const row of tl.data.rows) {
      if (!row.exact || tl.hiddenRow[row.row]) continue;
      for (let i = 0; i < row.cp.length; i += 1) {
        const cat = tl.meta.callpaths.category[row.cp[i]];
        if (wanted.includes(cat) && (!best || row.end[i] - row.start[i] > best.end - best.start)) {
          best = { row: row.row, start: row.start[i], end: row.end[i], cp: row.cp[i], category: cat };
        }
      }
    }
    return best;
  }, cats);
}

// Pixels across a bar (or band) at a fraction of the row's height: 3 points along it.
async function barPixels(page, bar, yFraction) {
  return page.evaluate(([b, f]) => {
    const tl = window.__gridscope.timeline;
    const x0 = tl.xOf(b.start), x1 = tl.xOf(b.end), y = tl.yOf(b.row) + tl.rowH * f;
    return [0.3, 0.5, 0.7].map((k) => tl.pixelAt(x0 + (x1 - x0) * k, y));
  }, [bar, yFraction]);
}

const isHighlight = (px) => Math.abs(px[0] - HIGHLIGHT[0]) < 8 && Math.abs(px[1] - HIGHLIGHT[1]) < 8 && Math.abs(px[2] - HIGHLIGHT[2]) < 8;

try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  page.setDefaultTimeout(PATIENT.timeout);  // clicks and fills wait for their element as long
  page.on('console', (msg) => { if (msg.type() === 'error') report.console_errors.push(msg.text()); });
  page.on('pageerror', (err) => report.page_errors.push(String(err)));
  page.on('dialog', async (d) => { report.dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  // the trace and the wait states may still be read (a first view): wait for them
  const atLoad = mode === 'loading' || mode === 'loaderror';
  if (!atLoad) await page.waitForSelector('body[data-loaded]', PATIENT);
  if (!atLoad && mode !== 'diff' && mode !== 'diffdist') await timelineSettled(page);  // a difference experiment has no timeline

  if (mode === 'loading') {
    // the test holds the server's trace read until this line says the page shows it
    await page.waitForFunction(() => (document.getElementById('timeline').dataset.loading || '').includes('%'), null, PATIENT);
    report.while_loading = await page.evaluate(() => ({
      ready: document.body.dataset.ready,
      loaded: document.body.dataset.loaded || null,
      text: document.getElementById('timeline').dataset.loading,
      canvas_ready: document.getElementById('timeline').dataset.ready,
      trees: ['metric-tree', 'call-tree', 'system-tree'].map((id) => document.querySelectorAll(`#${id} .node`).length),
      status: document.getElementById('status').textContent,
    }));
    process.stdout.write('saw-loading\n');
    await page.waitForSelector('body[data-loaded="1"]', PATIENT);
    await timelineSettled(page);
    report.after = await page.evaluate(() => ({
      loading: document.getElementById('timeline').dataset.loading || null,
      rows: window.__gridscope.timeline.data.rows.length,
      chips: document.querySelectorAll('#pattern-chips .chip').length,
      status: document.getElementById('status').textContent,
    }));
  } else if (mode === 'loaderror') {
    await page.waitForSelector('body[data-loaded="error"]', PATIENT);
    report.load_error = await page.evaluate(() => ({
      canvas: document.getElementById('timeline').dataset.error || null,
      status: document.getElementById('status').textContent,
      status_is_error: document.getElementById('status').classList.contains('error'),
      trees: document.querySelectorAll('#metric-tree .node').length,
    }));
  } else if (mode === 'main') {
    // pick the largest late-sender instance the server knows and look at it before the click
    const list = await page.evaluate(async () => (await (await fetch('/api/waitstates?pattern=late_sender&limit=1')).json()));
    const instance = list.instances[0];
    report.instance = instance;
    await page.evaluate((inst) => {  // zoom so the instance is wide on screen
      const span = inst.end_ns - inst.start_ns;
      window.__gridscope.timeline.setWindow(inst.start_ns - 2 * span, inst.end_ns + 2 * span);
    }, instance);
    await page.waitForFunction((inst) => {
      const c = document.getElementById('timeline');
      const w = (c.dataset.window || '').split(',').map(Number);
      return c.dataset.ready === '1' && w[0] <= inst.start_ns && w[1] >= inst.end_ns;
    }, instance, { timeout: 15000 });
    report.before = await instanceColours(page, instance);

    // the metric tree opens collapsed at the root, at 100 %
    report.metric_rows_at_start = await page.$$eval('#metric-tree .node', (els) => els.map((e) => e.dataset.key));
    report.root_pct = await page.textContent('#metric-tree .node[data-key="time"] .pct');
    // open the way to Late Sender as a user does, and click the (closed) pattern
    await revealMetric(page, 'late_sender');

    await page.click('#metric-tree .node[data-key="late_sender"] .label');
    await page.waitForFunction(() => (document.getElementById('timeline').dataset.highlight || '').includes('late_sender'), null, { timeout: 10000 });
    await page.waitForSelector('#instances-summary', { timeout: 10000 });
    await timelineSettled(page);
    report.highlight_attr = await page.getAttribute('#timeline', 'data-highlight');
    report.highlighted_count = Number(await page.getAttribute('#timeline', 'data-highlighted'));
    report.after = await instanceColours(page, instance);
    report.after_is_highlight = report.after.filter(isHighlight).length;
    report.before_is_highlight = report.before.filter(isHighlight).length;
    report.instances_text = await page.textContent('#instances-summary');
    report.metric_selected = await page.getAttribute('#metric-tree .node[data-key="late_sender"]', 'aria-selected');
    report.late_sender_open = await page.getAttribute('#metric-tree .node[data-key="late_sender"]', 'aria-expanded');
    // where it is: the call and system trees show the pattern's inclusive value, with percentages
    report.call_values = await page.$$eval('#call-tree .node', (els) => els.map((e) => [e.dataset.key,
      e.querySelector('.value').textContent, e.querySelector('.pct').textContent]));
    report.system_values = await page.$$eval('#system-tree .node', (els) => els.map((e) => [e.dataset.key,
      e.querySelector('.value').textContent, e.querySelector('.pct').textContent]));

    // whole run, then the screenshot of the highlighted view
    await page.click('#zoom-reset');
    await page.waitForFunction(() => document.getElementById('timeline').dataset.ready === '1', null, { timeout: 10000 });
    await page.waitForTimeout(300);
    await timelineSettled(page);
    report.highlighted_whole_run = Number(await page.getAttribute('#timeline', 'data-highlighted'));
    await page.screenshot({ path: arg, fullPage: true });

    // a grid/local child selects only that class
    if (await page.getAttribute('#metric-tree .node[data-key="late_sender"]', 'aria-expanded') === 'false') {
      await page.click('#metric-tree .node[data-key="late_sender"] .toggle');
    }
    await page.click('#metric-tree .node[data-key="late_sender_grid"] .label');
    await page.waitForFunction(() => document.getElementById('timeline').dataset.highlight === 'late_sender:grid', null, { timeout: 10000 });
    report.grid_only_count = Number(await page.getAttribute('#timeline', 'data-highlighted'));

    // a call path in the call tree focuses the timeline on it (the rest fades)
    await page.click('#call-tree .node[data-key="main/MPI_Recv"] .label');
    await page.waitForFunction(() => (document.getElementById('timeline').dataset.focus || '').startsWith('main/MPI_Recv'), null, { timeout: 10000 });
    report.focus_attr = await page.getAttribute('#timeline', 'data-focus');
    report.focus_count = Number(await page.getAttribute('#timeline', 'data-focus-count'));

    // communication tab: the metahost matrix
    await page.click('#tabs button[data-tab="comm"]');
    await page.waitForSelector('#comm-view table.matrix', { timeout: 10000 });
    report.matrix_cells = await page.$$eval('#comm-view table.matrix tbody td', (tds) => tds.map((td) => td.textContent));
  } else if (mode === 'largest') {
    // a fresh view: open the way to the pattern ARG (the run's largest) and click it, as a user
    // does; where it is shows in the call and system trees
    await revealMetric(page, arg);
    await page.click(`#metric-tree .node[data-key="${arg}"] .label`);
    await page.waitForFunction((k) => (document.getElementById('timeline').dataset.highlight || '').includes(k), arg, { timeout: 10000 });
    await timelineSettled(page);
    report.selected = await page.getAttribute(`#metric-tree .node[data-key="${arg}"]`, 'aria-selected');
    report.call_values = await page.$$eval('#call-tree .node', (els) => els.map((e) => [e.dataset.key,
      e.querySelector('.value').textContent, e.querySelector('.pct').textContent]));
    report.system_values = await page.$$eval('#system-tree .node', (els) => els.map((e) => [e.dataset.key,
      e.querySelector('.value').textContent, e.querySelector('.pct').textContent]));
    report.rows = await page.evaluate(() => window.__gridscope.timeline.meta.rows.length);
  } else if (mode === 'matrix') {
    // a run of many ranks: the rank matrix on a canvas with axes, a legend and a caption;
    // the smallest non-empty cell is coloured on a log scale, near white on a linear one
    await page.click('#tabs button[data-tab="comm"]');
    await page.selectOption('#comm-level', 'rank');
    const cellColour = async (scale) => {
      await page.selectOption('#comm-scale', scale);
      await page.waitForFunction((s) => {
        const l = document.getElementById('comm-legend');
        return l && l.dataset.scale === s && document.querySelector('#comm-view canvas[data-level="rank"]');
      }, scale, { timeout: 10000 });
      return page.evaluate(async () => {
        const m = await (await fetch('/api/comm?level=rank')).json();
        const smallest = m.cells.row.map((r, i) => [r, m.cells.col[i], m.cells.bytes[i], m.cells.count[i]]).reduce((a, x) => (x[2] < a[2] ? x : a));
        const canvas = document.querySelector('#comm-view canvas[data-level="rank"]');
        const cell = Number(canvas.dataset.cell);
        const x = 110 + smallest[1] * cell + cell / 2, y = 22 + smallest[0] * cell + cell / 2;
        return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3));
      });
    };
    report.log_pixel = await cellColour('log');
    report.linear_pixel = await cellColour('linear');
    report.label_step = Number(await page.getAttribute('#comm-view canvas[data-level="rank"]', 'data-label-step'));
    report.legend_text = await page.textContent('#comm-legend');
    report.caption = await page.textContent('#comm-caption');
    // point-to-point and collective bytes: the "all" matrix is the sum of the other two
    const totals = {};
    for (const kind of ['p2p', 'collective', 'all']) {
      await page.selectOption('#comm-kind', kind);
      await page.waitForFunction((k) => (document.getElementById('comm-caption') || {}).dataset?.kind === k, kind, { timeout: 10000 });
      totals[kind] = await page.evaluate(async (k) => (await (await fetch(`/api/comm?level=rank&kind=${k}`)).json()).total_bytes, kind);
      report[`caption_${kind}`] = await page.textContent('#comm-caption');
    }
    report.kind_totals = totals;
  } else if (mode === 'diff') {
    // a difference experiment: every node shows its delta, its share of base, and base → new;
    // no timeline panel (a diff has no trace)
    report.time_row = await page.textContent('#metric-tree .node[data-key="time"]');
    report.time_basenew = await page.textContent('#metric-tree .node[data-key="time"] .basenew');
    report.time_pct = await page.textContent('#metric-tree .node[data-key="time"] .pct');
    report.call_basenew = await page.$$eval('#call-tree .node', (els) => els.map((e) => [e.dataset.key,
      (e.querySelector('.basenew') || {}).textContent || '', e.querySelector('.pct').textContent]));
    report.timeline_hidden = await page.evaluate(() => document.getElementById('timeline-panel').hidden);
  } else if (mode === 'find') {
    // Find filters both trees: matches marked, their ancestors open, the rest hidden
    await page.fill('#tree-search', 'MPI_Recv');
    await page.waitForFunction(() => document.querySelectorAll('#call-tree .node.match').length > 0, null, { timeout: 10000 });
    report.find_calls = await page.$$eval('#call-tree .node', (els) => els.map((e) => [e.dataset.key, e.classList.contains('match')]));
    report.find_metrics = await page.$$eval('#metric-tree .node', (els) => els.length);
    await page.fill('#tree-search', 'late sender');
    await page.waitForFunction(() => document.querySelectorAll('#metric-tree .node.match').length > 0, null, { timeout: 10000 });
    report.find_metric_keys = await page.$$eval('#metric-tree .node', (els) => els.map((e) => [e.dataset.key, e.classList.contains('match')]));
    await page.fill('#tree-search', '');
    report.cleared_calls = await page.$$eval('#call-tree .node', (els) => els.length);
    // the system pane's per-rank distribution of the selected metric
    await page.waitForSelector('#rank-distribution span', { timeout: 10000 });
    report.distribution = await page.textContent('#rank-distribution span');
    report.distribution_max_rank = Number(await page.getAttribute('#rank-distribution', 'data-max-rank'));
    report.distribution_max_value = await page.evaluate(async () => {
      const v = (await (await fetch('/api/profile/system?metric=0&mincl=1')).json()).values;
      return v.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    });
    report.resize = await page.evaluate(() => ['metric-pane', 'call-pane', 'panes'].map((id) => getComputedStyle(document.getElementById(id)).resize));
  } else if (mode === 'rows') {
    // many ranks: thin rows get every step-th label; taller rows (vertical zoom) get more
    report.row_height = Number(await page.getAttribute('#timeline', 'data-row-height'));
    report.label_step = Number(await page.getAttribute('#timeline', 'data-label-step'));
    await page.click('#rows-taller');
    await page.click('#rows-taller');
    await timelineSettled(page);
    report.row_height_taller = Number(await page.getAttribute('#timeline', 'data-row-height'));
    report.label_step_taller = Number(await page.getAttribute('#timeline', 'data-label-step'));
    await page.click('#rows-shorter');
    await timelineSettled(page);
    report.row_height_back = Number(await page.getAttribute('#timeline', 'data-row-height'));
  } else if (mode === 'names') {
    // zoomed in on one computation, the bars carry their region's name
    report.names_whole_run = Number(await page.getAttribute('#timeline', 'data-names-in-bars'));
    await page.click('#rows-taller');
    await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      tl.setWindow(tl.full[0], tl.full[0] + (tl.full[1] - tl.full[0]) / 40);
    });
    await timelineSettled(page);
    report.names_zoomed = Number(await page.getAttribute('#timeline', 'data-names-in-bars'));
  } else if (mode === 'groups') {
    // clicking a metahost header collapses its group (its rows leave the picture) and reopens it
    const header = await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      const g = tl.groups[0];
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + 40, y: r.top + g.y + 8, metahost: g.metahost, height: tl.height };
    });
    report.metahost = header.metahost;
    report.height_open = header.height;
    await page.mouse.click(header.x, header.y);
    await timelineSettled(page);
    report.collapsed_attr = await page.getAttribute('#timeline', 'data-collapsed');
    report.height_collapsed = await page.evaluate(() => window.__gridscope.timeline.height);
    await page.mouse.click(header.x, header.y);
    await timelineSettled(page);
    report.collapsed_after = await page.getAttribute('#timeline', 'data-collapsed');
  } else if (mode === 'filter') {
    // the rank filter keeps only those rows; a bad range is one line in the status, nothing changes
    const visible = () => page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      return tl.meta.rows.filter((r, i) => !tl.hiddenRow[i]).map((r) => r.rank);
    });
    report.all_rows = (await visible()).length;
    await page.fill('#rank-filter', '0-2,5');
    await page.press('#rank-filter', 'Enter');
    await timelineSettled(page);
    report.filtered = [...new Set(await visible())].sort((a, b) => a - b);
    await page.fill('#rank-filter', '3-x');
    await page.press('#rank-filter', 'Enter');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'), null, { timeout: 5000 });
    report.bad_status = await page.textContent('#status');
    report.after_bad = [...new Set(await visible())].sort((a, b) => a - b);
  } else if (mode === 'window') {
    // the window summaries follow the zoom
    await page.waitForSelector('#window-summary table tbody tr', { timeout: 10000 });
    report.functions_whole = await page.$$eval('#window-summary .window-part:first-child tbody tr', (rs) => rs.map((r) => r.textContent));
    report.t1_whole = Number(await page.getAttribute('#window-summary', 'data-t1'));
    await page.click('#zoom-in');
    await page.waitForFunction((t1) => Number(document.getElementById('window-summary').dataset.t1) < t1, report.t1_whole, { timeout: 10000 });
    report.t1_zoomed = Number(await page.getAttribute('#window-summary', 'data-t1'));
    report.processes = await page.$$eval('#window-summary .window-part:last-child tbody tr', (rs) => rs.length);
  } else if (mode === 'colours') {
    // a computation bar, an MPI bar and a wait-state band, and the legend's swatches
    report.computation = await barPixels(page, await widestBar(page, [1]), 0.25);
    report.mpi = await barPixels(page, await widestBar(page, [2, 3, 4, 5]), 0.2);
    const wait = await page.evaluate(() => {
      const w = window.__gridscope.timeline.data.waits;
      let best = 0;
      for (let i = 1; i < w.row.length; i += 1) if (w.end[i] - w.start[i] > w.end[best] - w.start[best]) best = i;
      return { row: w.row[best], start: w.start[best], end: w.end[best] };
    });
    report.wait = await barPixels(page, wait, 0.8);
    report.legend = await page.$$eval('#legend .legend-item', (items) => items.map((e) => [e.dataset.family,
      e.textContent, getComputedStyle(e.querySelector('i')).backgroundColor]));
    report.legend_visible = await page.isVisible('#legend');
  } else if (mode === 'functions') {
    // the function filter greys (or hides) every other function's bars, and is cleared again
    const compute = await widestBar(page, [1]);
    const allreduce = await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      return tl.regionOfCp.indexOf('MPI_Allreduce');
    });
    const collective = await widestBar(page, [3]);
    report.collective_cp_is_allreduce = collective.cp === allreduce;
    // the widest band of each pattern: late_sender sits in MPI_Recv, wait_at_nxn in MPI_Allreduce
    const widestWait = (pattern) => page.evaluate((p) => {
      const tl = window.__gridscope.timeline;
      const w = tl.data.waits, k = tl.meta.patterns.indexOf(p);
      let best = -1;
      for (let i = 0; i < w.row.length; i += 1) {
        if (w.pattern[i] === k && (best < 0 || w.end[i] - w.start[i] > w.end[best] - w.start[best])) best = i;
      }
      return { row: w.row[best], start: w.start[best], end: w.end[best] };
    }, pattern);
    const lateSender = await widestWait('late_sender');
    const nxn = await widestWait('wait_at_nxn');
    const look = async () => ({ compute: await barPixels(page, compute, 0.25), collective: await barPixels(page, collective, 0.2),
      late_sender: await barPixels(page, lateSender, 0.8), wait_at_nxn: await barPixels(page, nxn, 0.8) });
    const filterIs = (text) => page.waitForFunction((t) => {
      const c = document.getElementById('timeline');
      return c.dataset.functionFilter === t && c.dataset.ready === '1';
    }, text, PATIENT);
    report.before = await look();
    await page.fill('#function-filter', 'mpi_allreduce');  // any case
    await page.press('#function-filter', 'Enter');
    await filterIs('MPI_Allreduce');
    report.filtered = await look();
    report.chips = await page.$$eval('#function-filter-chips .chip', (els) => els.map((e) => e.dataset.function));
    report.clear_visible = await page.isVisible('#function-filter-clear');
    // a name that matches nothing: one line in the status, the filter stays
    await page.fill('#function-filter', 'no_such_function');
    await page.press('#function-filter', 'Enter');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'), null, PATIENT);
    report.bad_status = await page.textContent('#status');
    report.filter_after_bad = await page.getAttribute('#timeline', 'data-function-filter');
    // hide the others instead of greying them
    await page.check('#function-filter-hide');
    await page.waitForFunction(() => document.getElementById('timeline').dataset.functionFilterHide === 'true', null, PATIENT);
    report.hidden = await look();
    await page.click('#function-filter-clear');
    await filterIs('');
    report.cleared = await look();
    report.chips_after_clear = await page.$$eval('#function-filter-chips .chip', (els) => els.length);
    report.clear_visible_after = await page.isVisible('#function-filter-clear');
    // the window summary's function table adds to the filter on a click
    await page.waitForSelector('#window-summary .window-part:first-child tbody tr', PATIENT);
    await page.click('#window-summary .window-part:first-child tbody tr:has-text("compute")');
    await filterIs('compute');
  } else if (mode === 'pairs') {
    // click a rank matrix cell (table or canvas): that pair's messages light up on the timeline
    const cell = await page.evaluate(async () => {
      const m = await (await fetch('/api/comm?level=rank')).json();
      const c = m.cells.row.map((r, i) => [r, m.cells.col[i], m.cells.bytes[i], m.cells.count[i]]).find(([r, col, , k]) => r !== col && k > 0 && m.ranks[r] !== 0);
      return { r: c[0], c: c[1], k: c[3], from: m.ranks[c[0]], to: m.ranks[c[1]], n: m.labels.length };
    });
    report.cell = cell;
    await page.click('#tabs button[data-tab="comm"]');
    await page.selectOption('#comm-level', 'rank');
    await page.waitForSelector('#comm-view table.matrix[data-level="rank"], #comm-view canvas[data-level="rank"]', PATIENT);
    if (await page.$('#comm-view table.matrix')) {
      report.kind = 'table';
      await page.click(`#comm-view table.matrix td[data-from="${cell.r}"][data-to="${cell.c}"]`);
    } else {
      report.kind = 'canvas';
      const canvas = await page.$('#comm-view canvas[data-level="rank"]');
      const size = Number(await canvas.getAttribute('data-cell'));
      await canvas.click({ position: { x: 110 + (cell.c + 0.5) * size, y: 22 + (cell.r + 0.5) * size } });
    }
    await page.waitForFunction(() => !document.getElementById('pair-caption').hidden, null, PATIENT);
    await timelineSettled(page);
    report.analysis_tab = await page.isVisible('#tab-analysis');
    report.caption = await page.textContent('#pair-caption');
    report.pair_messages = Number(await page.getAttribute('#timeline', 'data-pair-messages'));
    // zoomed in on one of the pair's messages: the middle of its line is yellow, the middle
    // of another pair's line is not
    await page.evaluate((want) => {
      const tl = window.__gridscope.timeline;
      const m = tl.data.messages;
      const i = m.from.findIndex((f, k) => tl.meta.rows[f].rank === want.from && tl.meta.rows[m.to[k]].rank === want.to);
      const d = Math.max(m.tr[i] - m.ts[i], 1000);
      tl.setWindow(m.ts[i] - d, m.tr[i] + d);
    }, cell);
    await timelineSettled(page);
    report.line_pixels = await page.evaluate((want) => {
      const tl = window.__gridscope.timeline;
      const m = tl.data.messages;
      const mid = (i) => tl.pixelAt((tl.xOf(m.ts[i]) + tl.xOf(m.tr[i])) / 2,
        (tl.yOf(m.from[i]) + tl.yOf(m.to[i])) / 2 + tl.rowH / 2);
      const out = { pair: [], other: [] };
      for (let i = 0; i < m.from.length; i += 1) {
        const mine = tl.meta.rows[m.from[i]].rank === want.from && tl.meta.rows[m.to[i]].rank === want.to;
        if (tl.xOf(m.tr[i]) - tl.xOf(m.ts[i]) > 8) (mine ? out.pair : out.other).push(mid(i));
      }
      return out;
    }, cell);
    await page.click('#pair-clear');
    await page.waitForFunction(() => document.getElementById('timeline').dataset.pairMessages === '0', null, PATIENT);
    report.caption_hidden_after = await page.evaluate(() => document.getElementById('pair-caption').hidden);
    // a metahost cell: every rank of one metahost to every rank of the other, whole run
    await page.click('#zoom-reset');
    await timelineSettled(page);
    report.metahost_cell = await page.evaluate(async () => {
      const m = await (await fetch('/api/comm?level=metahost')).json();
      const c = m.cells.row.map((r, i) => [r, m.cells.col[i], m.cells.bytes[i], m.cells.count[i]]).find(([r, col, , k]) => r !== col && k > 0);
      return { r: c[0], c: c[1], k: c[3], from: m.labels[c[0]], to: m.labels[c[1]] };
    });
    await page.click('#tabs button[data-tab="comm"]');
    await page.selectOption('#comm-level', 'metahost');
    await page.waitForSelector('#comm-view table.matrix[data-level="metahost"]', PATIENT);
    await page.click(`#comm-view table.matrix td[data-from="${report.metahost_cell.r}"][data-to="${report.metahost_cell.c}"]`);
    await page.waitForFunction(() => !document.getElementById('pair-caption').hidden, null, PATIENT);
    await timelineSettled(page);
    report.metahost_caption = await page.textContent('#pair-caption');
    report.metahost_pair_messages = Number(await page.getAttribute('#timeline', 'data-pair-messages'));
  } else if (mode === 'aggregate') {
    // collapse the first metahost: one aggregated row, each pixel column stacked by category
    const header = await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + 40, y: r.top + tl.groups[0].y + 8, metahost: tl.groups[0].metahost, height: tl.height };
    });
    report.metahost = header.metahost;
    report.height_open = header.height;
    await page.mouse.click(header.x, header.y);
    await page.waitForFunction((mh) => {
      const c = document.getElementById('timeline');
      return c.dataset.ready === '1' && c.dataset.aggregated === mh;
    }, header.metahost, PATIENT);
    // the columns where most locations compute / are in MPI, and the pixel in the middle of
    // that part of the stack (MPI at the bottom, computation above it)
    report.samples = await page.evaluate((mh) => {
      const tl = window.__gridscope.timeline;
      const g = tl.groups.find((x) => x.metahost === mh);
      const d = tl.groupData.get(mh);
      const count = (cats, i) => cats.reduce((a, c) => a + ((d.categories[String(c)] || [])[i] || 0), 0);
      const mpiCats = [2, 3, 4, 5, 6];
      const columns = [...Array(d.width).keys()];
      const unit = (g.aggH - 1) / d.locations;
      const px = tl.plotWidth() / d.width;
      const bottom = g.aggY + g.aggH - 1;
      const pick = (cats, offset) => columns.map((i) => [count(cats, i), i]).sort((a, b) => b[0] - a[0]).slice(0, 3)
        .map(([k, i]) => ({ count: k, pixel: tl.pixelAt(tl.xOf(d.t0) + (i + 0.5) * px, bottom - (offset(i) + k / 2) * unit) }));
      return { locations: d.locations, rows: g.last - g.first + 1, aggH: g.aggH,
        mpi: pick(mpiCats, () => 0), computation: pick([1], (i) => count(mpiCats, i)) };
    }, header.metahost);
    report.height_collapsed = await page.evaluate(() => window.__gridscope.timeline.height);
    // the aggregated row's tooltip says what is stacked
    const spot = await page.evaluate((mh) => {
      const tl = window.__gridscope.timeline;
      const g = tl.groups.find((x) => x.metahost === mh);
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + tl.xOf((tl.t0 + tl.t1) / 2), y: r.top + g.aggY + g.aggH / 2 };
    }, header.metahost);
    await page.mouse.move(spot.x, spot.y);
    await page.waitForFunction(() => !document.getElementById('tooltip').hidden, null, PATIENT);
    report.tooltip = await page.textContent('#tooltip');
    await page.mouse.click(spot.x, spot.y);  // a click on the aggregated row opens the group again
    await page.waitForFunction(() => {
      const c = document.getElementById('timeline');
      return c.dataset.ready === '1' && c.dataset.aggregated === '';
    }, null, PATIENT);
    report.height_reopened = await page.evaluate(() => window.__gridscope.timeline.height);
  } else if (mode === 'aggfilter') {
    // the function filter greys (or hides) the other functions in a collapsed group's row too
    const header = await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + 40, y: r.top + tl.groups[0].y + 8, metahost: tl.groups[0].metahost };
    });
    await page.mouse.click(header.x, header.y);
    await page.waitForFunction((mh) => {
      const c = document.getElementById('timeline');
      return c.dataset.ready === '1' && c.dataset.aggregated === mh;
    }, header.metahost, PATIENT);
    const filterIs = (text, hide) => page.waitForFunction(([t, h]) => {
      const c = document.getElementById('timeline');
      return c.dataset.functionFilter === t && c.dataset.functionFilterHide === h && c.dataset.ready === '1';
    }, [text, hide], PATIENT);
    // the column with the most locations outside the filter, sampled in the middle of that part
    const look = () => page.evaluate((mh) => {
      const tl = window.__gridscope.timeline;
      const g = tl.groups.find((x) => x.metahost === mh);
      const d = tl.groupData.get(mh);
      const out = d.filtered || new Array(d.width).fill(0);
      let i = 0;
      for (let k = 1; k < d.width; k += 1) if (out[k] > out[i]) i = k;
      const below = Object.values(d.categories).reduce((a, c) => a + c[i], 0);
      const unit = (g.aggH - 1) / d.locations;
      const px = tl.plotWidth() / d.width;
      const y = g.aggY + g.aggH - 1 - (below + out[i] / 2) * unit;
      return { categories: Object.keys(d.categories), filtered: out[i], in_filter: below,
        pixel: tl.pixelAt(tl.xOf(d.t0) + (i + 0.5) * px, y) };
    }, header.metahost);
    report.before = await look();
    await page.fill('#function-filter', 'MPI_Allreduce');
    await page.press('#function-filter', 'Enter');
    await filterIs('MPI_Allreduce', 'false');
    report.greyed = await look();
    await page.check('#function-filter-hide');
    await filterIs('MPI_Allreduce', 'true');
    report.hidden = await look();
    await page.click('#function-filter-clear');
    await filterIs('', 'false');
    report.cleared = await look();
  } else if (mode === 'diffdist') {
    // a difference with its BASE: three box plots in the system pane, base → new on its rows
    await page.waitForSelector('#rank-distribution[data-kind="diff"] .rank-distribution', PATIENT);
    report.distributions = await page.$$eval('#rank-distribution .rank-distribution', (els) => els.map((e) => ({
      which: e.dataset.which, text: e.querySelector('span').textContent, min_rank: Number(e.dataset.minRank),
      max_rank: Number(e.dataset.maxRank), median: Number(e.dataset.median) })));
    report.system_rows = await page.$$eval('#system-tree .node .basenew', (els) => els.map((e) => e.textContent));
  } else if (mode === 'shots') {
    // benchmarks/viewer/screenshots.py: the main views, into the folder ARG
    report.shots = [];
    const shot = async (name, fullPage = false) => { await page.screenshot({ path: `${arg}/${name}`, fullPage }); report.shots.push(name); };
    await shot('viewer-analysis.png');
    await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      tl.setWindow(tl.full[0], tl.full[0] + (tl.full[1] - tl.full[0]) / 30);
    });
    await timelineSettled(page);
    await page.waitForSelector('#window-summary table', PATIENT);
    await page.waitForTimeout(300);
    await shot('viewer-timeline.png', true);
    await page.click('#tabs button[data-tab="comm"]');
    await page.selectOption('#comm-level', 'rank');
    await page.waitForSelector('#comm-view canvas[data-level="rank"]', PATIENT);
    await shot('viewer-matrix.png');
    // the analyst's tools: a matrix cell's messages, a collapsed metahost as one row, the
    // function filter (the timeline panel only)
    const pair = await page.evaluate(async () => {
      const m = await (await fetch('/api/comm?level=rank')).json();
      const groups = m.groups || [];
      const last = groups[groups.length - 1];
      const cells = m.cells.row.map((r, i) => [r, m.cells.col[i], m.cells.bytes[i], m.cells.count[i]]);
      return cells.find(([r, c]) => r !== c && (!last || (r < last[1] && c >= last[1]))) || cells[0];
    });
    const canvas = await page.$('#comm-view canvas[data-level="rank"]');
    const size = Number(await canvas.getAttribute('data-cell'));
    await canvas.click({ position: { x: 110 + (pair[1] + 0.5) * size, y: 22 + (pair[0] + 0.5) * size } });
    await page.waitForFunction(() => !document.getElementById('pair-caption').hidden, null, PATIENT);
    await page.evaluate(() => window.__gridscope.timeline.toggleGroup(window.__gridscope.timeline.groups[0].metahost));
    await page.fill('#function-filter', 'MPI_Recv');
    await page.press('#function-filter', 'Enter');
    await timelineSettled(page);
    await page.evaluate(() => { document.getElementById('timeline-wrap').scrollTop = 0; });
    await timelineSettled(page);
    await page.waitForTimeout(300);
    await page.locator('#timeline-panel').screenshot({ path: `${arg}/viewer-tools.png` });
    report.shots.push('viewer-tools.png');
  } else if (mode === 'message') {
    // hovering a message line names sender, receiver, bytes, tag and times
    const target = await page.evaluate(() => {
      const tl = window.__gridscope.timeline;
      const m = tl.data.messages;
      for (let i = 0; i < m.from.length; i += 1) {
        const x1 = tl.xOf(m.ts[i]), x2 = tl.xOf(m.tr[i]);
        if (x2 - x1 > 6) {
          const y1 = tl.yOf(m.from[i]) + tl.rowH / 2, y2 = tl.yOf(m.to[i]) + tl.rowH / 2;
          const r = tl.canvas.getBoundingClientRect();
          return { x: r.left + (x1 + x2) / 2, y: r.top + (y1 + y2) / 2, bytes: m.bytes[i], tag: m.tag[i] };
        }
      }
      return null;
    });
    report.target = target;
    if (target) {
      await page.mouse.move(target.x, target.y);
      await page.waitForFunction(() => !document.getElementById('tooltip').hidden, null, { timeout: 5000 });
      report.tooltip = await page.textContent('#tooltip');
    }
  } else if (mode === 'path') {
    // the critical path's first stretch: its top bar is drawn in the path colour, and not
    // once the "critical path" box is unticked
    const stretch = await page.evaluate(() => {
      const d = window.__gridscope.timeline.data.critical;
      return { row: d.row[0], start: d.start[0], end: d.end[0] };
    });
    const colourAt = () => page.evaluate((s) => {
      const tl = window.__gridscope.timeline;
      return tl.pixelAt((tl.xOf(s.start) + tl.xOf(s.end)) / 2, tl.yOf(s.row) + 1);
    }, stretch);
    report.toggle_visible = await page.isVisible('#path-toggle');
    report.critical = Number(await page.getAttribute('#timeline', 'data-critical'));
    report.links = Number(await page.getAttribute('#timeline', 'data-links'));
    report.on = await colourAt();
    await page.screenshot({ path: arg, fullPage: true });
    await page.uncheck('#path-toggle');
    await page.waitForFunction(() => document.getElementById('timeline').dataset.critical === '0', null, { timeout: 10000 });
    report.off = await colourAt();
    await page.hover('#timeline', { position: { x: 10, y: 10 } });
    report.status_text = await page.textContent('#status');
    await page.click('#tabs button[data-tab="summary"]');
    report.summary_text = await page.textContent('#summary-view');
    report.findings = await page.$$eval('#findings li strong', (els) => els.map((e) => e.textContent));
  } else if (mode === 'values') {
    // Cube's value modes: absolute (value and share) and percent of the run (share alone)
    const cells = (tree) => page.$$eval(`#${tree} .node`, (els) => els.map((e) => [e.dataset.key,
      e.querySelector('.value').textContent, e.querySelector('.pct').textContent]));
    report.absolute = await cells('metric-tree');
    await page.selectOption('#value-mode', 'percent');
    report.percent_metrics = await cells('metric-tree');
    report.percent_calls = await cells('call-tree');
    await page.selectOption('#value-mode', 'absolute');
    report.back = await cells('metric-tree');
  } else if (mode === 'zero') {
    // metrics that are zero everywhere: hidden at first, shown on request
    const rows = () => page.$$eval('#metric-tree .node', (els) => els.map((e) => e.dataset.key));
    report.rows = await rows();
    await page.check('#show-zero-metrics');
    report.rows_with_zero = await rows();
  } else if (mode === 'xss') {
    await page.waitForSelector('#call-tree .node', { timeout: 10000 });
    report.call_labels = await page.$$eval('#call-tree .node .label', (els) => els.map((e) => e.textContent));
    // open every call-tree node so nested names render too
    report.img_elements = await page.$$eval('img', (els) => els.length);
    report.name_shown = report.call_labels.includes(arg);
    await page.hover('#timeline', { position: { x: 400, y: 30 } });
    report.tooltip = await page.textContent('#tooltip');
    report.img_elements_after_hover = await page.$$eval('img', (els) => els.length);
    report.xss_flag = await page.evaluate(() => window.__xss === 1);
  }
  report.ok = true;
} catch (err) {
  report.ok = false;
  report.error = String(err && err.stack ? err.stack : err);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
