// The timeline's messages: lines from send to receive (between metahosts blue and thicker),
// a matrix cell's pair drawn yellow over the faded rest, and the line under the pointer.
import { bytes, ns } from './format.js';
import { HIGHLIGHT, MSG_GRID, MSG_LOCAL } from './colours.js';

function inPair(tl, i) {
  const m = tl.data.messages;
  return tl.pair.from.has(m.from[i]) && tl.pair.to.has(m.to[i]);
}

// every message line of the window; returns how many messages of the matrix pair it drew
export function drawMessages(ctx, tl) {
  const m = tl.data.messages;
  const crowded = m.from.length > 400;  // many lines: lighter, so the rows stay readable
  const picked = [];  // a matrix cell's messages: drawn last, yellow with a dark edge
  const line = (i) => {
    ctx.beginPath();
    ctx.moveTo(tl.xOf(m.ts[i]), tl.rowY[m.from[i]] + tl.rowH / 2);
    ctx.lineTo(tl.xOf(m.tr[i]), tl.rowY[m.to[i]] + tl.rowH / 2);
    ctx.stroke();
  };
  for (let i = 0; i < m.from.length; i += 1) {
    if (tl.rowY[m.from[i]] === undefined || tl.rowY[m.to[i]] === undefined) continue;
    if (tl.pair && inPair(tl, i)) { picked.push(i); continue; }
    if (tl.pair) ctx.strokeStyle = 'rgba(120,120,120,0.3)';
    else ctx.strokeStyle = m.grid[i] ? (crowded ? 'rgba(31,111,235,0.35)' : MSG_GRID) : (crowded ? 'rgba(20,20,20,0.25)' : MSG_LOCAL);
    ctx.lineWidth = m.grid[i] && !crowded && !tl.pair ? 2 : 1;
    line(i);
  }
  let count = 0;
  for (const [colour, width] of [['#000', 5], [HIGHLIGHT, 3]]) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    for (const i of picked) line(i);
  }
  for (const i of picked) count += m.count[i];
  ctx.lineWidth = 1;
  return count;
}

// The message line nearest to (x, y) within 4 px, as an index into data.messages (-1: none).
export function messageAt(tl, x, y) {
  const m = tl.data && tl.data.messages;
  if (!m) return -1;
  let best = -1, bestD = 4;
  for (let i = 0; i < m.from.length; i += 1) {
    const ya = tl.rowY[m.from[i]], yb = tl.rowY[m.to[i]];
    if (ya === undefined || yb === undefined) continue;
    const x1 = tl.xOf(m.ts[i]), y1 = ya + tl.rowH / 2, x2 = tl.xOf(m.tr[i]), y2 = yb + tl.rowH / 2;
    const dx = x2 - x1, dy = y2 - y1, len2 = dx * dx + dy * dy;
    const k = len2 ? Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / len2)) : 0;
    const d = Math.hypot(x - (x1 + k * dx), y - (y1 + k * dy));
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
}

export function describeMessage(tl, i) {
  const m = tl.data.messages;
  const from = tl.meta.rows[m.from[i]], to = tl.meta.rows[m.to[i]];
  const lines = [`message ${from.label} (${from.metahost}) → ${to.label} (${to.metahost})${m.grid[i] ? ', across metahosts' : ''}`,
    `${bytes(m.bytes[i])}${m.tag && m.tag[i] !== null && m.tag[i] !== undefined ? `, tag ${m.tag[i]}` : ''}`
      + `${m.count[i] > 1 ? ` (one of ${m.count[i]} drawn as this line)` : ''}`,
    `sent ${ns(m.ts[i])}, received ${ns(m.tr[i])}: ${ns(m.tr[i] - m.ts[i])}`];
  return lines.join('\n');
}
