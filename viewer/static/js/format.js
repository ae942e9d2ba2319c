// Number formatting and colour scales: the units of gridscope/units.py (µs, ms, s; B, KiB,
// MiB; never "-0": what rounds to zero is 0 s).
export function seconds(v) {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  const [text, unit] = a >= 100 ? [v.toFixed(1), 's'] : a >= 1 ? [v.toFixed(3), 's']
    : a >= 1e-3 ? [(v * 1e3).toFixed(3), 'ms'] : a >= 1e-6 ? [(v * 1e6).toFixed(3), 'µs']
      : [(v * 1e9).toFixed(0), 'ns'];
  return Number(text) === 0 ? '0 s' : `${text} ${unit}`;
}

export function value(v, uom) {
  if (uom === 'sec') return seconds(v);
  if (uom === 'bytes') return bytes(v);
  if (!Number.isFinite(v)) return '–';
  return Math.abs(v) >= 1e6 ? v.toExponential(3) : String(Math.round(v * 1000) / 1000);
}

export function bytes(v) {
  const a = Math.abs(v);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0, x = a;
  while (x >= 1024 && i < units.length - 1) { x /= 1024; i += 1; }
  return `${v < 0 ? '-' : ''}${i ? x.toFixed(2) : x.toFixed(0)} ${units[i]}`;
}

export function percent(part, whole) {
  if (!whole) return '';
  const text = (100 * part / whole).toFixed(1);
  return `${Number(text) === 0 ? '0.0' : text} %`;
}

export function ns(t) { return seconds(t / 1e9); }

// Cube-like colour map: white→blue→green→yellow→red with the share of the total.
const STOPS = [[0, [255, 255, 255]], [0.05, [160, 190, 255]], [0.25, [80, 200, 120]],
  [0.5, [250, 220, 60]], [0.75, [250, 140, 40]], [1, [215, 40, 40]]];
export function heat(fraction) {
  const f = Math.max(0, Math.min(1, fraction || 0));
  for (let i = 1; i < STOPS.length; i += 1) {
    const [b, cb] = STOPS[i];
    const [a, ca] = STOPS[i - 1];
    if (f <= b) {
      const k = (f - a) / (b - a);
      return `rgb(${ca.map((c, j) => Math.round(c + k * (cb[j] - c))).join(',')})`;
    }
  }
  return 'rgb(215,40,40)';
}

// Difference experiments: blue for less time (an improvement), red for more.
export function diverging(fraction) {
  const f = Math.max(-1, Math.min(1, fraction || 0));
  const k = Math.abs(f);
  const base = f >= 0 ? [215, 40, 40] : [40, 90, 215];
  return `rgb(${base.map((c) => Math.round(255 + k * (c - 255))).join(',')})`;
}
