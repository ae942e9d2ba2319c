// Vampir-like timeline on a canvas: one row per location grouped by metahost (a collapsed
// group is one aggregated row), colours by family (colours.js), messages as lines, wait
// states as bands coloured by pattern; a highlighted pattern is drawn full height in yellow,
// a matrix cell's messages in yellow too; the function filter greys the other functions.
// The server sends a level-of-detail summary of the visible window only (/api/timeline).
import { get } from './api.js';
import { ns } from './format.js';
import { describeGroupRow, drawGroupRow } from './group-row.js';
import { describeMessage, drawMessages, messageAt } from './timeline-messages.js';
import { CATEGORY_COLOURS, FILTERED_OUT, HIGHLIGHT, PATH_COLOUR, patternColour } from './colours.js';

const GUTTER = 150;
const GROUP_HEADER = 16;
const AXIS = 20;  // time ruler at the top

export class Timeline {
  constructor({ canvas, wrap, tooltip, meta, onWindow, onPairDrawn }) {
    this.canvas = canvas;
    this.wrap = wrap;
    this.tooltip = tooltip;
    this.meta = meta;
    this.onWindow = onWindow || (() => {});
    this.onPairDrawn = onPairDrawn || (() => {});  // how many highlighted messages are drawn
    this.pair = null;  // messages highlighted from the matrix: { from: Set of rows, to: Set of rows }
    this.full = [meta.start_ns, Math.max(meta.duration_ns, meta.start_ns + 1)];
    [this.t0, this.t1] = this.full;
    this.highlight = [];
    this.vzoom = 1;  // vertical zoom: row height x this (rows + / rows −)
    this.collapsed = new Set();  // metahost groups shown as one aggregated row (click to toggle)
    this.rankFilter = null;      // a Set of ranks to show (null: all)
    this.showPath = true;
    this.functions = null;        // function filter: a Set of region names in colour (null: all)
    this.hideFiltered = false;    // ... and the others hidden instead of greyed
    this.data = null;
    this.seq = 0;
    this.layoutRows();
    this.names = this.callpathNames();
    this.regionOfCp = this.meta.callpaths.region.map((r) => (this.meta.regions[String(r)] || {}).name);
    this.bindEvents();
    new ResizeObserver(() => this.refresh()).observe(this.wrap);
  }

  // ------------------------------------------------------------- geometry
  layoutRows() {
    const rows = this.meta.rows;
    const groups = [];
    rows.forEach((r, i) => {
      if (!groups.length || groups[groups.length - 1].metahost !== r.metahost) groups.push({ metahost: r.metahost, first: i, last: i });
      groups[groups.length - 1].last = i;
    });
    this.groups = groups;
    const avail = Math.max(120, this.wrap.clientHeight - groups.length * GROUP_HEADER - AXIS - 4);
    const fit = Math.floor(avail / Math.max(rows.length, 1));
    // rows that fit (at least 3 px: more ranks than pixels scroll), times the vertical zoom
    const base = Math.max(3, Math.min(22, fit));
    this.rowH = Math.max(3, Math.min(22 * Math.max(1, this.vzoom), Math.round(base * this.vzoom)));
    this.rowY = new Array(rows.length);
    this.hiddenRow = new Array(rows.length).fill(false);
    let y = AXIS;
    for (const g of groups) {
      g.y = y;
      y += GROUP_HEADER;
      g.collapsed = this.collapsed.has(g.metahost);
      if (g.collapsed) {  // one aggregated row for the whole group
        g.aggY = y;
        g.aggH = Math.max(14, this.rowH);
        y += g.aggH;
      }
      for (let i = g.first; i <= g.last; i += 1) {
        // a collapsed group's rows sit on its aggregated row, a filtered-out row on its
        // header line: messages still reach the group
        const hidden = g.collapsed || (this.rankFilter !== null && !this.rankFilter.has(rows[i].rank));
        const parked = g.collapsed ? g.aggY + g.aggH / 2 : g.y + GROUP_HEADER / 2;
        this.rowY[i] = hidden ? parked - this.rowH / 2 : y;
        this.hiddenRow[i] = hidden;
        if (!hidden) y += this.rowH;
      }
    }
    this.canvas.dataset.collapsed = [...this.collapsed].join(',');
    this.height = y + 2;
  }

  plotWidth() { return Math.max(50, this.wrap.clientWidth - GUTTER - 2); }
  xOf(t) { return GUTTER + ((t - this.t0) / (this.t1 - this.t0)) * this.plotWidth(); }
  tOf(x) { return this.t0 + ((x - GUTTER) / this.plotWidth()) * (this.t1 - this.t0); }
  yOf(row) { return this.rowY[row]; }

  rowAt(y) {
    for (let i = 0; i < this.rowY.length; i += 1) if (!this.hiddenRow[i] && y >= this.rowY[i] && y < this.rowY[i] + this.rowH) return i;
    return -1;
  }

  groupAt(y) { return this.groups.find((g) => y >= g.y && y < g.y + GROUP_HEADER) || null; }

  // Rank filter: "0-15,64" shows those ranks only ("" all); returns an error text or ''.
  setRankFilter(text) {
    const t = text.trim();
    let set = null;
    if (t) {
      set = new Set();
      for (const part of t.split(',')) {
        const m = part.trim().match(/^(\d+)(?:\s*-\s*(\d+))?$/);
        if (!m) return `ranks: "${part.trim()}" is not a rank or a range such as 0-15`;
        const a = Number(m[1]), b = m[2] === undefined ? a : Number(m[2]);
        if (b < a || b - a > 1e6) return `ranks: ${part.trim()} is not an ascending range`;
        for (let r = a; r <= b; r += 1) set.add(r);
      }
    }
    this.rankFilter = set;
    this.canvas.dataset.rankFilter = t;
    this.layoutRows();
    this.refresh();
    return '';
  }

  toggleGroup(metahost) {
    if (this.collapsed.has(metahost)) this.collapsed.delete(metahost);
    else this.collapsed.add(metahost);
    this.layoutRows();
    this.refresh();
  }

  visibleRows() {
    const top = this.wrap.scrollTop;
    const bottom = top + this.wrap.clientHeight;
    let r0 = 0;
    while (r0 < this.rowY.length && this.rowY[r0] + this.rowH < top) r0 += 1;
    let r1 = r0;
    while (r1 < this.rowY.length && this.rowY[r1] <= bottom) r1 += 1;
    return [Math.max(0, r0 - 8), Math.min(this.rowY.length, r1 + 8)];
  }

  callpathNames() {
    const { parent, region } = this.meta.callpaths;
    const names = [];
    for (let i = 0; i < parent.length; i += 1) {
      const reg = this.meta.regions[String(region[i])];
      const name = reg ? reg.name : `region ${region[i]}`;
      names.push(parent[i] < 0 ? name : `${names[parent[i]]}/${name}`);
    }
    return names;
  }

  // ------------------------------------------------------------- window
  setWindow(t0, t1) {
    const [lo, hi] = this.full;
    let a = Math.round(t0), b = Math.round(t1);
    const minSpan = 100;
    if (b - a < minSpan) { const mid = (a + b) / 2; a = Math.round(mid - minSpan / 2); b = a + minSpan; }
    if (b - a > hi - lo) { a = lo; b = hi; }
    if (a < lo) { b += lo - a; a = lo; }
    if (b > hi) { a -= b - hi; b = hi; }
    this.t0 = a; this.t1 = b;
    this.onWindow(a, b);
    this.refresh();
  }

  zoom(factor, atT) {
    const t = atT ?? (this.t0 + this.t1) / 2;
    this.setWindow(t - (t - this.t0) * factor, t + (this.t1 - t) * factor);
  }

  reset() { this.setWindow(...this.full); }

  // Vertical zoom: taller rows (scroll to the others) or shorter ones (more on screen).
  zoomRows(factor) {
    this.vzoom = Math.max(1 / 8, Math.min(64, this.vzoom * factor));
    this.layoutRows();
    this.canvas.dataset.rowHeight = String(this.rowH);
    this.refresh();
  }

  setHighlight(list) {
    this.highlight = list;
    this.canvas.dataset.highlight = list.map((h) => (h.klass ? `${h.pattern}:${h.klass}` : h.pattern)).join(',');
    this.draw();
  }

  // Show one call path (and, inclusive, its callees) in full colour, fade the rest.
  setFocus(path, inclusive) {
    this.focus = null;
    if (path) {
      this.focus = new Set();
      this.names.forEach((name, cp) => {
        if (name === path || (inclusive && name.startsWith(`${path}/`))) this.focus.add(cp);
      });
    }
    this.canvas.dataset.focus = path ? `${path}${inclusive ? ' (inclusive)' : ''}` : '';
    this.canvas.dataset.focusCount = String(this.focus ? this.focus.size : 0);
    this.draw();
  }

  // Highlight the messages from one set of rows to another (a matrix cell); null: none.
  setPairHighlight(pair) {
    this.pair = pair;
    this.draw();
  }

  // Function filter: only these region names in colour (null: all); the rest greyed or hidden.
  setFunctionFilter(names, hide) {
    this.functions = names;
    this.hideFiltered = hide;
    this.canvas.dataset.functionFilter = names ? [...names].join(',') : '';
    this.canvas.dataset.functionFilterHide = String(Boolean(names && hide));
    // an aggregated row needs the server's counts for the new filter; the rows only a redraw
    if (this.groups.some((g) => g.collapsed)) this.refresh(); else this.draw();
  }

  // the function filter as region ids for /api/timeline/group (undefined: no filter)
  filterRegions() {
    if (!this.functions) return undefined;
    return Object.entries(this.meta.regions).filter(([, r]) => this.functions.has(r.name)).map(([id]) => id).join(',');
  }

  // the colour a bar of call path cp gets under the function filter (null: not drawn)
  filtered(cp, colour) {
    if (!colour || !this.functions || this.functions.has(this.regionOfCp[cp])) return colour;
    return this.hideFiltered ? null : FILTERED_OUT;
  }

  setShowPath(on) {
    this.showPath = on;
    this.draw();
  }

  isHighlighted(patternIndex, klassIndex) {
    const pattern = this.meta.patterns[patternIndex];
    const klass = this.meta.classes[klassIndex];
    return this.highlight.some((h) => h.pattern === pattern && (h.klass === null || h.klass === klass));
  }

  // ------------------------------------------------------------- data
  refresh() {
    this.canvas.dataset.ready = '0';  // until the picture of the new window is drawn
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.fetch(), 40);
  }

  async fetch() {
    // hidden (another tab): nothing to size the rows and pixels by; the ResizeObserver
    // refreshes once the timeline is shown again
    if (this.wrap.offsetParent === null) return;
    const ticket = ++this.seq;
    this.canvas.dataset.ready = '0';
    const [r0, r1] = this.visibleRows();
    const width = Math.round(this.plotWidth());
    const collapsed = this.groups.filter((g) => g.collapsed);
    const view = { t0: this.t0, t1: this.t1, width };
    try {
      const [data, ...groups] = await Promise.all([get('/api/timeline', { ...view, r0, r1 }),
        ...collapsed.map((g) => get('/api/timeline/group', { ...view, metahost: g.metahost, regions: this.filterRegions() })
          .catch((err) => { this.canvas.dataset.error = err.message; return null; }))]);
      if (ticket !== this.seq) return;
      this.data = data;
      this.groupData = new Map(collapsed.map((g, i) => [g.metahost, groups[i]]));
      this.draw();
    } catch (err) {
      this.canvas.dataset.error = err.message;
    }
  }

  // ------------------------------------------------------------- drawing
  draw() {
    const dpr = window.devicePixelRatio || 1;
    const width = this.wrap.clientWidth;
    const height = this.height;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
    }
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    this.drawLabels(ctx, width);
    this.drawAxis(ctx, width);
    let highlighted = 0;
    let path = [0, 0];
    let pairCount = 0;
    let aggregated = [];
    if (this.data && this.data.t0 === this.t0 && this.data.t1 === this.t1) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(GUTTER, 0, this.plotWidth(), height);
      ctx.clip();
      this.drawRows(ctx);
      highlighted = this.drawWaits(ctx);
      pairCount = drawMessages(ctx, this);
      aggregated = this.drawGroupRows(ctx);  // over the messages, which end inside it
      if (this.showPath) path = this.drawPath(ctx);
      ctx.restore();
    }
    const current = this.data && this.data.t0 === this.t0 && this.data.t1 === this.t1;
    this.canvas.dataset.highlighted = String(highlighted);
    this.canvas.dataset.critical = String(path[0]);
    this.canvas.dataset.links = String(path[1]);
    this.canvas.dataset.pairMessages = String(pairCount);
    this.canvas.dataset.aggregated = aggregated.join(',');
    if (this.pair && current) this.onPairDrawn(pairCount);
    this.canvas.dataset.ready = current ? '1' : '0';
    this.canvas.dataset.window = `${this.t0},${this.t1}`;
  }

  drawLabels(ctx, width) {
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const g of this.groups) {
      ctx.fillStyle = '#eef1f6';
      ctx.fillRect(0, g.y, width, GROUP_HEADER);
      ctx.fillStyle = '#1d1d1f';
      ctx.font = 'bold 11px system-ui, sans-serif';
      ctx.fillText(this.fit(ctx, `${g.collapsed ? '▸' : '▾'} ${g.metahost}  (${g.last - g.first + 1}${g.collapsed ? ' ranks in one row: click to open' : ''})`, width - 8), 4, g.y + GROUP_HEADER / 2);
      ctx.font = '11px system-ui, sans-serif';
    }
    for (const g of this.groups) {
      if (g.collapsed) ctx.fillText(this.fit(ctx, `all ${g.last - g.first + 1}, stacked`, GUTTER - 14), 6, g.aggY + g.aggH / 2);
    }
    // rank labels at any density: every row when rows are >= 9 px, else every step-th row of
    // each metahost group (labels stay 11 px apart), with a tick; hover names any row
    const step = this.rowH >= 9 ? 1 : Math.ceil(11 / this.rowH);
    this.canvas.dataset.labelStep = String(step);
    this.canvas.dataset.rowHeight = String(this.rowH);
    ctx.fillStyle = '#333';
    ctx.strokeStyle = '#999';
    for (const g of this.groups) {
      const shownRows = [];
      for (let i = g.first; i <= g.last; i += 1) if (!this.hiddenRow[i]) shownRows.push(i);
      for (let k = 0; k < shownRows.length; k += step) {
        const i = shownRows[k];
        const y = this.rowY[i] + this.rowH / 2;
        ctx.fillText(this.fit(ctx, this.meta.rows[i].label, GUTTER - 14), 6, step > 1 ? Math.max(y, this.rowY[i] + 5) : y);
        if (step > 1) { ctx.beginPath(); ctx.moveTo(GUTTER - 6, this.rowY[i] + 0.5); ctx.lineTo(GUTTER - 1, this.rowY[i] + 0.5); ctx.stroke(); }
      }
    }
    ctx.strokeStyle = '#d9d9de';
    ctx.beginPath();
    ctx.moveTo(GUTTER - 0.5, 0);
    ctx.lineTo(GUTTER - 0.5, this.height);
    ctx.stroke();
  }

  // Ticks at 1, 2 or 5 x 10^k ns, about one per 110 px, labelled relative to the run start.
  drawAxis(ctx, width) {
    const span = this.t1 - this.t0;
    const raw = (span / this.plotWidth()) * 110;
    const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
    const step = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= raw) || 10 * pow;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, AXIS);
    ctx.strokeStyle = '#9a9aa0';
    ctx.fillStyle = '#444';
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.beginPath();
    for (let t = Math.ceil(this.t0 / step) * step; t <= this.t1; t += step) {
      const x = Math.round(this.xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS - 6);
      ctx.lineTo(x, AXIS);
      ctx.fillText(ns(t), x + 2, 3);
    }
    ctx.moveTo(GUTTER, AXIS - 0.5);
    ctx.lineTo(width, AXIS - 0.5);
    ctx.stroke();
    ctx.textBaseline = 'middle';
  }

  fit(ctx, text, maxWidth) {
    if (ctx.measureText(text).width <= maxWidth) return text;
    let s = text;
    while (s.length > 1 && ctx.measureText(`${s}…`).width > maxWidth) s = s.slice(0, -1);
    return `${s}…`;
  }

  colourOfCp(cp) {
    return cp >= 0 ? CATEGORY_COLOURS[this.meta.callpaths.category[cp]] : null;
  }

  drawRows(ctx) {
    const h = Math.max(1, this.rowH - (this.rowH > 4 ? 1 : 0));
    const faded = (cp) => this.focus && !this.focus.has(cp);
    const px = this.plotWidth() / this.data.width;
    const named = [];  // bars wide enough for their region's name: drawn once all bars are
    for (const row of this.data.rows) {
      if (this.hiddenRow[row.row]) continue;
      const y = this.rowY[row.row];
      if (row.exact) {
        for (let i = 0; i < row.cp.length; i += 1) {
          const colour = this.filtered(row.cp[i], this.colourOfCp(row.cp[i]));
          if (!colour) continue;
          const x0 = this.xOf(row.start[i]);
          const x1 = this.xOf(row.end[i]);
          ctx.globalAlpha = faded(row.cp[i]) ? 0.18 : 1;
          ctx.fillStyle = colour;
          ctx.fillRect(x0, y, Math.max(x1 - x0, 0.6), h);
          if (h >= 10 && x1 - x0 > 24 && colour !== FILTERED_OUT) named.push([x0, x1, y, row.cp[i]]);
        }
      } else {
        for (let i = 0; i < row.cp.length; i += 1) {
          const cp = row.cp[i];
          const mpi = row.mpi[i] / 1000;
          let colour;
          const cat = cp >= 0 ? this.meta.callpaths.category[cp] : 0;
          const isMpi = cat >= 2 && cat <= 6;
          if (mpi >= 0.5) colour = isMpi ? CATEGORY_COLOURS[cat] : CATEGORY_COLOURS[2];
          else if (cp >= 0) colour = isMpi ? CATEGORY_COLOURS[1] : CATEGORY_COLOURS[cat];
          else if (mpi > 0) colour = CATEGORY_COLOURS[2];
          if (cp >= 0) colour = this.filtered(cp, colour);
          if (!colour) continue;
          ctx.globalAlpha = faded(cp) ? 0.18 : 1;
          ctx.fillStyle = colour;
          ctx.fillRect(GUTTER + i * px, y, px + 0.3, h);
        }
      }
    }
    ctx.globalAlpha = 1;
    // names inside bars when they fit (the region, the last part of its call path)
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#111';
    let shown = 0;
    for (const [x0, x1, y, cp] of named) {
      const name = this.names[cp].slice(this.names[cp].lastIndexOf('/') + 1);
      const a = Math.max(x0, GUTTER) + 2, b = Math.min(x1, GUTTER + this.plotWidth()) - 2;
      if (b - a < ctx.measureText(name).width) continue;
      ctx.fillText(name, a, y + h / 2);
      shown += 1;
    }
    this.canvas.dataset.namesInBars = String(shown);
  }

  // collapsed groups: one aggregated row each (group-row.js); returns their metahosts
  drawGroupRows(ctx) {
    const drawn = [];
    for (const g of this.groups) {
      const d = g.collapsed && this.groupData && this.groupData.get(g.metahost);
      if (!d || d.t0 !== this.t0 || d.t1 !== this.t1) continue;
      drawGroupRow(ctx, this, g, d);
      drawn.push(g.metahost);
    }
    return drawn;
  }

  groupRowAt(y) { return this.groups.find((g) => g.collapsed && y >= g.aggY && y < g.aggY + g.aggH) || null; }

  // The call path a row's data shows at time t (-1: none or not sent).
  cpAt(detail, t) {
    if (!detail || !detail.cp.length) return -1;
    if (!detail.exact) return detail.cp[Math.min(detail.cp.length - 1, Math.max(0, Math.floor(((t - this.t0) / (this.t1 - this.t0)) * detail.cp.length)))];
    let lo = 0, hi = detail.start.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (detail.start[mid] <= t) lo = mid; else hi = mid - 1; }
    return detail.start[lo] <= t && t < detail.end[lo] ? detail.cp[lo] : -1;
  }

  drawWaits(ctx) {
    const w = this.data.waits;
    const active = this.highlight.length > 0;
    let count = 0;
    const later = [];
    // under the function filter, a wait band on a filtered-out function fades (or hides) with it
    const detailOf = this.functions ? new Map(this.data.rows.map((d) => [d.row, d])) : null;
    const outside = (i) => {
      const cp = detailOf ? this.cpAt(detailOf.get(w.row[i]), (w.start[i] + w.end[i]) / 2) : -1;
      return cp >= 0 && !this.functions.has(this.regionOfCp[cp]);
    };
    for (let i = 0; i < w.row.length; i += 1) {
      const y = this.rowY[w.row[i]];
      if (y === undefined || this.hiddenRow[w.row[i]]) continue;
      const x0 = this.xOf(w.start[i]);
      const x1 = Math.max(this.xOf(w.end[i]), x0 + 2);
      if (active && this.isHighlighted(w.pattern[i], w.klass[i])) { later.push([x0, x1, y]); count += w.count[i]; continue; }
      const filtered = outside(i);
      if (filtered && this.hideFiltered) continue;
      ctx.fillStyle = active || filtered ? 'rgba(120,120,120,0.35)' : patternColour(w.pattern[i]);
      const band = Math.max(2, Math.round(this.rowH * 0.45));
      ctx.fillRect(x0, y + this.rowH - band - 1, x1 - x0, band);
    }
    for (const [x0, x1, y] of later) {  // highlighted last, so nothing covers them
      ctx.fillStyle = HIGHLIGHT;
      ctx.fillRect(x0, y, x1 - x0, this.rowH - 1);
      if (this.rowH >= 6) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 1;
        ctx.strokeRect(x0 + 0.5, y + 0.5, Math.max(x1 - x0 - 1, 1), this.rowH - 2);
      }
    }
    return count;
  }

  // The critical path: a bar along the top of each row it runs on, and a dashed arrow where it
  // moves from the rank that delayed to the rank that waited (the cause -> wait links).
  drawPath(ctx) {
    const cp = this.data.critical;
    const links = this.data.links;
    if (!cp || !links) return [0, 0];
    let stretches = 0;
    const bar = Math.max(2, Math.round(this.rowH * 0.3));
    ctx.fillStyle = PATH_COLOUR;
    for (let i = 0; i < cp.row.length; i += 1) {
      const y = this.rowY[cp.row[i]];
      if (y === undefined) continue;
      const x0 = this.xOf(cp.start[i]);
      const x1 = Math.max(this.xOf(cp.end[i]), x0 + 1);
      ctx.fillRect(x0, y, x1 - x0, bar);
      stretches += cp.count[i];
    }
    let moves = 0;
    ctx.strokeStyle = PATH_COLOUR;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([4, 3]);
    for (let i = 0; i < links.from.length; i += 1) {
      const ya = this.rowY[links.from[i]];
      const yb = this.rowY[links.to[i]];
      if (ya === undefined || yb === undefined) continue;
      const xa = this.xOf(links.tf[i]);
      const xb = this.xOf(links.tt[i]);
      const ys = ya + bar / 2;
      const ye = yb + bar / 2;
      ctx.beginPath();
      ctx.moveTo(xa, ys);
      ctx.lineTo(xb, ye);
      ctx.stroke();
      const angle = Math.atan2(ye - ys, xb - xa);  // arrowhead at the waiting end
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(xb, ye);
      ctx.lineTo(xb - 6 * Math.cos(angle - 0.45), ye - 6 * Math.sin(angle - 0.45));
      ctx.lineTo(xb - 6 * Math.cos(angle + 0.45), ye - 6 * Math.sin(angle + 0.45));
      ctx.closePath();
      ctx.fillStyle = PATH_COLOUR;
      ctx.fill();
      ctx.setLineDash([4, 3]);
      moves += links.count[i];
    }
    ctx.setLineDash([]);
    return [stretches, moves];
  }

  // pixel colour at CSS coordinates (tests and debugging)
  pixelAt(x, y) {
    const dpr = window.devicePixelRatio || 1;
    return Array.from(this.canvas.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data);
  }

  // ------------------------------------------------------------- interaction
  describe(x, y) {
    const msg = messageAt(this, x, y);
    if (msg >= 0) {
      this.canvas.dataset.hoverMessage = String(msg);
      return describeMessage(this, msg);
    }
    const group = this.groupRowAt(y);
    const gd = group && this.groupData && this.groupData.get(group.metahost);
    if (gd && x >= GUTTER) return describeGroupRow(this, group, gd, this.tOf(x)).join('\n');
    const row = this.rowAt(y);
    if (row < 0 || x < GUTTER || !this.data) return null;
    const r = this.meta.rows[row];
    const t = this.tOf(x);
    const lines = [`${r.label} — ${r.metahost} / ${r.node}`, `t = ${ns(t)}`];
    const detail = this.data.rows.find((d) => d.row === row);
    if (detail) {
      let cp = -1;
      if (detail.exact) {
        for (let i = 0; i < detail.cp.length; i += 1) if (detail.start[i] <= t && t < detail.end[i]) { cp = detail.cp[i]; if (detail.end[i] - detail.start[i] >= 0) lines.push(`duration ${ns(detail.end[i] - detail.start[i])}`); break; }
      } else {
        const i = Math.floor(((t - this.t0) / (this.t1 - this.t0)) * detail.cp.length);
        if (i >= 0 && i < detail.cp.length) { cp = detail.cp[i]; lines.push(`MPI share of this pixel: ${(detail.mpi[i] / 10).toFixed(1)} %`); }
      }
      if (cp >= 0) lines.splice(2, 0, this.names[cp]);
    }
    const cp = this.data.critical;
    if (this.showPath && cp) {
      for (let i = 0; i < cp.row.length; i += 1) {
        if (cp.row[i] === row && cp.start[i] <= t && t <= cp.end[i]) { lines.push('on the critical path'); break; }
      }
    }
    const w = this.data.waits;
    for (let i = 0; i < w.row.length; i += 1) {
      if (w.row[i] === row && w.start[i] <= t && t <= w.end[i]) {
        lines.push(`wait state: ${this.meta.patterns[w.pattern[i]]} (${this.meta.classes[w.klass[i]]}), ${ns(w.end[i] - w.start[i])}${w.count[i] > 1 ? ` ×${w.count[i]}` : ''}`);
      }
    }
    return lines.join('\n');
  }

  bindEvents() {
    const c = this.canvas;
    c.addEventListener('wheel', (e) => {
      if (e.ctrlKey || Math.abs(e.deltaY) < Math.abs(e.deltaX)) return;
      if (e.shiftKey) return;  // shift+wheel scrolls the rows
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      const x = e.clientX - rect.left;
      this.zoom(e.deltaY < 0 ? 0.8 : 1.25, x > GUTTER ? this.tOf(x) : undefined);
    }, { passive: false });
    let drag = null;
    let downX = null;  // a click that ended a drag (pan) toggles nothing
    c.addEventListener('mousedown', (e) => { drag = { x: e.clientX, t0: this.t0, t1: this.t1 }; downX = e.clientX; });
    window.addEventListener('mouseup', () => { drag = null; });
    c.addEventListener('dblclick', () => this.reset());
    c.addEventListener('click', (e) => {  // a metahost header opens or collapses its group
      const rect = c.getBoundingClientRect();
      if (downX !== null && Math.abs(e.clientX - downX) > 2) return;
      const g = this.groupAt(e.clientY - rect.top) || this.groupRowAt(e.clientY - rect.top);  // or its aggregated row
      if (g) this.toggleGroup(g.metahost);
    });
    c.addEventListener('mousemove', (e) => {
      const rect = c.getBoundingClientRect();
      if (drag && e.buttons === 1) {
        const dt = ((e.clientX - drag.x) / this.plotWidth()) * (drag.t1 - drag.t0);
        if (Math.abs(e.clientX - drag.x) > 2) this.setWindow(drag.t0 - dt, drag.t1 - dt);
        this.tooltip.hidden = true;
        return;
      }
      const text = this.describe(e.clientX - rect.left, e.clientY - rect.top);
      if (!text) { this.tooltip.hidden = true; return; }
      this.tooltip.textContent = text;
      this.tooltip.hidden = false;
      this.tooltip.style.left = `${e.clientX + 14}px`;
      this.tooltip.style.top = `${e.clientY + 14}px`;
    });
    c.addEventListener('mouseleave', () => { this.tooltip.hidden = true; });
    this.wrap.addEventListener('scroll', () => this.refresh());
    window.addEventListener('keydown', (e) => {  // + - 0 and arrows, unless typing in a field
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || this.wrap.offsetParent === null) return;
      const span = this.t1 - this.t0;
      if (e.key === '+' || e.key === '=') this.zoom(0.5);
      else if (e.key === '-') this.zoom(2);
      else if (e.key === '0') this.reset();
      else if (e.key === 'ArrowLeft') this.setWindow(this.t0 - span / 4, this.t1 - span / 4);
      else if (e.key === 'ArrowRight') this.setWindow(this.t0 + span / 4, this.t1 + span / 4);
      else return;
      e.preventDefault();
    });
  }
}
