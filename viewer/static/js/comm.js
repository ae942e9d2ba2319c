// Communication matrices (bytes or messages from row to column), metahost or rank level.
import { get } from './api.js';
import { clear, el, table } from './dom.js';
import { bytes, heat } from './format.js';

let ticket = 0;

export async function renderComm(container, totalLabel, { level, window, show }) {
  const mine = ++ticket;
  const params = { level };
  if (window) { params.t0 = window[0]; params.t1 = window[1]; }
  const m = await get('/api/comm', params);
  if (mine !== ticket) return;  // a newer choice is on its way
  clear(container);
  totalLabel.textContent = `${bytes(m.total_bytes)} in ${m.total_messages} messages`;
  const n = m.labels.length;
  const grid = Array.from({ length: n }, () => new Array(n).fill(null));
  for (const [r, c, b, k] of m.cells) grid[r][c] = { b, k };
  const valueOf = (cell) => (cell ? (show === 'bytes' ? cell.b : cell.k) : 0);
  const max = Math.max(1, ...m.cells.map(([, , b, k]) => (show === 'bytes' ? b : k)));
  const text = (cell) => (cell ? (show === 'bytes' ? bytes(cell.b) : String(cell.k)) : '');
  if (n <= 32) {
    const head = el('tr', {}, el('th', { class: 'text', text: 'from \\ to' }), m.labels.map((l) => el('th', { class: 'text', text: l })));
    const rows = m.labels.map((label, r) => el('tr', {}, el('th', { class: 'text', text: label }),
      grid[r].map((cell) => el('td', { text: text(cell), title: cell ? `${bytes(cell.b)}, ${cell.k} messages` : 'nothing', style: { background: cell ? heat(valueOf(cell) / max) : '' } }))));
    container.append(el('table', { class: 'matrix', 'data-level': level }, el('thead', {}, head), el('tbody', {}, rows)));
    return;
  }
  // many ranks: a heat map on a canvas, hover for the numbers
  const cell = Math.max(2, Math.min(12, Math.floor(560 / n)));
  const canvas = el('canvas', { width: n * cell, height: n * cell, 'data-level': level });
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, n * cell, n * cell);
  for (const [r, c, b, k] of m.cells) {
    ctx.fillStyle = heat((show === 'bytes' ? b : k) / max);
    ctx.fillRect(c * cell, r * cell, cell, cell);
  }
  // metahost blocks: boundaries across the matrix, names along the top
  ctx.strokeStyle = '#1f6feb';
  ctx.lineWidth = 1;
  for (const [, first] of m.groups || []) {
    if (first === 0) continue;
    ctx.beginPath();
    ctx.moveTo(first * cell + 0.5, 0); ctx.lineTo(first * cell + 0.5, n * cell);
    ctx.moveTo(0, first * cell + 0.5); ctx.lineTo(n * cell, first * cell + 0.5);
    ctx.stroke();
  }
  const blocks = el('p', { class: 'muted', text: `metahost blocks (blue lines): ${(m.groups || []).map(([name, , count]) => `${name} ${count}`).join(', ')}` });
  const info = el('p', { class: 'muted', text: 'rows send, columns receive; hover a cell' });
  canvas.addEventListener('mousemove', (e) => {
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - rect.left) / cell);
    const r = Math.floor((e.clientY - rect.top) / cell);
    if (r < 0 || c < 0 || r >= n || c >= n) return;
    const g = grid[r][c];
    info.textContent = `${m.labels[r]} → ${m.labels[c]}: ${g ? `${bytes(g.b)}, ${g.k} messages` : 'nothing'}`;
  });
  container.append(blocks, info, canvas);
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
