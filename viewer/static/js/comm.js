// Communication matrices (bytes or messages from row to column), metahost or rank level:
// axes with rank and metahost labels, a colour legend, linear or log scale, and a caption
// that says what is counted: point-to-point messages, collectives' bytes (placed as the
// caption says) or both, which together are the metric tree's Bytes sent.
import { get } from './api.js';
import { clear, el, table } from './dom.js';
import { bytes, heat } from './format.js';

// /api/comm's cells come as columns (row, col, bytes, count); one [r, c, bytes, count] per cell
export function cellList(cols) {
  return cols.row.map((r, i) => [r, cols.col[i], cols.bytes[i], cols.count[i]]);
}

let ticket = 0;
const LOG_RANGE = 100;  // auto: log scale once the non-empty cells span more than this factor
const LEFT = 110, TOP = 22;  // canvas margins for the axes' labels, px

// value -> [0, 1] on the chosen scale (a non-empty cell is never white on a log scale)
function scaler(values, scale) {
  // (a loop, not Math.max(...values): a million cells would overflow the call stack)
  let max = 1, smallest = Infinity;
  for (const v of values) {
    if (v > max) max = v;
    if (v > 0 && v < smallest) smallest = v;
  }
  const min = Math.max(1, Math.min(smallest, max));
  const log = scale === 'log' || (scale === 'auto' && max / min > LOG_RANGE);
  const f = log ? (v) => (v > 0 ? 0.05 + 0.95 * Math.log(v / min + 1) / Math.log(max / min + 1) : 0) : (v) => v / max;
  return { f, log, min, max };
}

function legend(s, show) {
  const fmt = (v) => (show === 'bytes' ? bytes(v) : Math.round(v).toLocaleString('en'));
  const bar = el('canvas', { width: 160, height: 10, class: 'legend-bar' });
  const ctx = bar.getContext('2d');
  for (let x = 0; x < 160; x += 1) { ctx.fillStyle = heat(x / 159); ctx.fillRect(x, 0, 1, 10); }
  return el('div', { id: 'comm-legend', class: 'comm-legend', 'data-scale': s.log ? 'log' : 'linear' },
    el('span', { text: s.log ? fmt(s.min) : '0' }), bar, el('span', { text: fmt(s.max) }),
    el('span', { class: 'muted', text: s.log ? ' log scale' : ' linear scale' }));
}

const KIND_TEXT = { p2p: 'Point-to-point messages', collective: 'Collective operations', all: 'Point-to-point and collective' };

function caption(m) {
  const unit = m.kind === 'p2p' ? 'messages' : m.kind === 'collective' ? 'operation shares' : 'messages and operation shares';
  let text = `${KIND_TEXT[m.kind] || KIND_TEXT.p2p}: ${bytes(m.total_bytes)} in ${m.total_messages.toLocaleString('en')} ${unit} (rows send, columns receive).`;
  if (m.kind !== 'p2p') {
    text += ' OTF2 records only how many bytes a rank sent in a collective, not to whom: they go to the root when the'
      + " operation has one and the rank is not it (gather, reduce), else evenly to the communicator's other members"
      + ' (broadcast or scatter root, allreduce, all-to-all), so each row holds exactly what that rank sent.';
  }
  const profile = m.profile_bytes_sent;
  if (profile != null && m.kind === 'all') {
    text += ` The metric tree's Bytes sent: ${bytes(profile)}.`;
  } else if (profile != null && profile > m.total_bytes) {
    text += ` The metric tree's Bytes sent (${bytes(profile)}) counts point-to-point and collective bytes; `
      + 'choose "all" to see both here.';
  }
  return el('p', { id: 'comm-caption', class: 'muted', 'data-kind': m.kind, text });
}

// onCell({ level, from, to, fromLabel, toLabel }): a cell was clicked (from/to: ranks or
// metahost names), so the timeline can highlight that pair's messages.
export async function renderComm(container, totalLabel, { level, window, show, scale = 'auto', kind = 'p2p', onCell }) {
  const mine = ++ticket;
  const params = { level, kind };
  if (window) { params.t0 = window[0]; params.t1 = window[1]; }
  const m = await get('/api/comm', params);
  if (mine !== ticket) return;  // a newer choice is on its way
  clear(container);
  totalLabel.textContent = `${bytes(m.total_bytes)} in ${m.total_messages} messages`;
  const n = m.labels.length;
  const grid = Array.from({ length: n }, () => new Array(n).fill(null));
  const cells = cellList(m.cells);
  for (const [r, c, b, k] of cells) grid[r][c] = { b, k };
  const valueOf = (cell) => (cell ? (show === 'bytes' ? cell.b : cell.k) : 0);
  const s = scaler(cells.map(([, , b, k]) => (show === 'bytes' ? b : k)), scale);
  const text = (cell) => (cell ? (show === 'bytes' ? bytes(cell.b) : String(cell.k)) : '');
  const keyOf = (i) => (level === 'rank' ? m.ranks[i] : m.labels[i]);
  const pick = (r, c) => onCell && grid[r][c] && onCell({ level, from: keyOf(r), to: keyOf(c), fromLabel: m.labels[r], toLabel: m.labels[c] });
  container.append(caption(m), legend(s, show));
  if (n <= 32) {
    const head = el('tr', {}, el('th', { class: 'text', text: 'from \\ to' }), m.labels.map((l) => el('th', { class: 'text', text: l })));
    const rows = m.labels.map((label, r) => el('tr', {}, el('th', { class: 'text', text: label }),
      grid[r].map((cell, c) => el('td', { text: text(cell), class: cell ? 'pickable' : '', 'data-from': r, 'data-to': c,
        title: cell ? `${bytes(cell.b)}, ${cell.k} messages; click: show them on the timeline` : 'nothing',
        style: { background: cell ? heat(s.f(valueOf(cell))) : '' }, onclick: (e) => {
          if (!cell) return;
          for (const td of container.querySelectorAll('td.picked')) td.classList.remove('picked');
          e.currentTarget.classList.add('picked');
          pick(r, c);
        } }))));
    container.append(el('table', { class: 'matrix', 'data-level': level }, el('thead', {}, head), el('tbody', {}, rows)));
    return;
  }
  // many ranks: a heat map on a canvas with axes, hover for the numbers
  const cell = Math.max(2, Math.min(12, Math.floor(560 / n)));
  const side = n * cell;
  const canvas = el('canvas', { width: LEFT + side, height: TOP + side, 'data-level': level, 'data-cell': cell });
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, LEFT + side, TOP + side);
  for (const [r, c, b, k] of cells) {
    ctx.fillStyle = heat(s.f(show === 'bytes' ? b : k));
    ctx.fillRect(LEFT + c * cell, TOP + r * cell, cell, cell);
  }
  // axes: every step-th rank (labels >= 11 px apart), metahost names at their blocks
  const step = Math.ceil(11 / cell);
  canvas.dataset.labelStep = String(step);
  ctx.fillStyle = '#333';
  ctx.font = '10px sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  const rankOf = (label) => label.replace(/^Rank (\d+).*/, '$1');
  for (let r = 0; r < n; r += step) ctx.fillText(rankOf(m.labels[r]), LEFT - 4, TOP + r * cell + cell / 2);
  ctx.textAlign = 'left';
  ctx.strokeStyle = '#1f6feb';
  ctx.lineWidth = 1;
  for (const [name, first, count] of m.groups || []) {
    ctx.fillStyle = '#1f6feb';
    ctx.fillText(name, LEFT + first * cell + 2, TOP / 2);  // along the top
    ctx.save();
    ctx.textAlign = 'left';
    ctx.fillText(name, 4, TOP + (first + count / 2) * cell);  // along the left
    ctx.restore();
    if (first === 0) continue;
    ctx.beginPath();
    ctx.moveTo(LEFT + first * cell + 0.5, TOP); ctx.lineTo(LEFT + first * cell + 0.5, TOP + side);
    ctx.moveTo(LEFT, TOP + first * cell + 0.5); ctx.lineTo(LEFT + side, TOP + first * cell + 0.5);
    ctx.stroke();
  }
  const info = el('p', { class: 'muted', text: 'hover a cell: sender → receiver; click it: its messages on the timeline' });
  const cellAt = (e) => {
    const rect = canvas.getBoundingClientRect();
    return [Math.floor((e.clientY - rect.top - TOP) / cell), Math.floor((e.clientX - rect.left - LEFT) / cell)];
  };
  canvas.addEventListener('click', (e) => {
    const [r, c] = cellAt(e);
    if (r >= 0 && c >= 0 && r < n && c < n) pick(r, c);
  });
  canvas.addEventListener('mousemove', (e) => {
    const [r, c] = cellAt(e);
    if (r < 0 || c < 0 || r >= n || c >= n) return;
    const g = grid[r][c];
    info.textContent = `${m.labels[r]} → ${m.labels[c]}: ${g ? `${bytes(g.b)}, ${g.k} messages` : 'nothing'}`;
  });
  container.append(info, canvas);
}

// Traffic per metahost pair, and each WAN direction as a link (measured beside nominal).
export function renderP2pTable(container, p2p, links) {
  clear(container);
  if (!Array.isArray(p2p) || !p2p.length) {
    container.append(el('p', { class: 'muted', text: 'summary.json lists no metahost pairs' }));
    return;
  }
  container.append(table(
    [{ label: 'from', text: true }, { label: 'to', text: true }, 'bytes', 'messages'],
    p2p.map((p) => [p.from, p.to, bytes(p.bytes || 0), (p.messages ?? 0).toLocaleString('en')]),
  ));
  if (Array.isArray(links) && links.length) {
    container.append(table(
      [{ label: 'WAN direction', text: true }, 'latency', 'nominal', 'bandwidth', 'nominal', 'waiting caused'],
      links.map((l) => [l.link, l.latency, l.nominal_latency, l.bandwidth, l.nominal_bandwidth, l.waiting]),
    ));
  }
}
