// Per-rank distribution of the selected metric (Cube's box plot): a box from the lower to
// the upper quartile with the median, whiskers to min and max, and the numbers (min and max
// with their ranks, median, mean). A difference experiment with its BASE at hand gets three:
// base and new on one shared axis (so they compare), and the delta on its own.
import { el } from './dom.js';
import { value } from './format.js';

const W = 220, H = 18;

function stats(values) {
  const ranks = [...values.entries()].sort((a, b) => a[1] - b[1]);
  const at = (q) => ranks[Math.min(ranks.length - 1, Math.floor(q * (ranks.length - 1) + 0.5))][1];
  return { ranks, lo: ranks[0][1], q1: at(0.25), med: at(0.5), q3: at(0.75), hi: ranks[ranks.length - 1][1],
    mean: ranks.reduce((a, r) => a + r[1], 0) / ranks.length };
}

// one box plot line; axis [lo, hi] (default: the values' own range); label before the numbers
function boxLine(values, uom, { label = 'ranks', axis = null, which = null } = {}) {
  const s = stats(values);
  const [lo, hi] = axis || [s.lo, s.hi];
  const span = hi - lo || 1, x = (v) => 4 + (W - 8) * (v - lo) / span;
  const box = el('canvas', { width: W, height: H, class: 'boxplot' });
  const ctx = box.getContext('2d');
  ctx.strokeStyle = '#333';
  ctx.beginPath(); ctx.moveTo(x(s.lo), H / 2); ctx.lineTo(x(s.hi), H / 2); ctx.stroke();
  ctx.fillStyle = '#dbe9ff';
  ctx.fillRect(x(s.q1), 3, Math.max(1, x(s.q3) - x(s.q1)), H - 6);
  ctx.strokeRect(x(s.q1), 3, Math.max(1, x(s.q3) - x(s.q1)), H - 6);
  ctx.beginPath(); ctx.moveTo(x(s.med), 2); ctx.lineTo(x(s.med), H - 2); ctx.stroke();
  const first = s.ranks[0][0], last = s.ranks[s.ranks.length - 1][0];
  const text = `${label}: min ${value(s.lo, uom)} (rank ${first}) · median ${value(s.med, uom)} · `
    + `mean ${value(s.mean, uom)} · max ${value(s.hi, uom)} (rank ${last})`;
  return el('div', { class: 'rank-distribution', 'data-which': which, 'data-min-rank': first, 'data-max-rank': last,
    'data-median': s.med, 'data-mean': s.mean }, box, el('span', { class: 'muted', text }));
}

// A normal view: one line. Keeps the element the tests and users know (#rank-distribution).
export function distribution(values, uom, label = 'ranks') {
  if (!values.size) return el('div', { id: 'rank-distribution' });
  const line = boxLine(values, uom, { label });
  line.id = 'rank-distribution';
  return line;
}

// A difference with its BASE: base, new (= base + delta per rank) and delta.
export function diffDistribution(delta, base, uom) {
  const ranks = new Set([...delta.keys(), ...base.keys()]);
  if (!ranks.size) return el('div', { id: 'rank-distribution' });
  const fresh = new Map([...ranks].map((r) => [r, (base.get(r) || 0) + (delta.get(r) || 0)]));
  const old = new Map([...ranks].map((r) => [r, base.get(r) || 0]));
  const all = [...fresh.values(), ...old.values()];
  const axis = [Math.min(...all), Math.max(...all)];
  return el('div', { id: 'rank-distribution', class: 'rank-distributions', 'data-kind': 'diff' },
    boxLine(old, uom, { label: 'base', axis, which: 'base' }),
    boxLine(fresh, uom, { label: 'new', axis, which: 'new' }),
    boxLine(new Map([...ranks].map((r) => [r, delta.get(r) || 0])), uom, { label: 'Δ new − base', which: 'delta' }));
}
