// A collapsed metahost group as one aggregated row (/api/timeline/group): per pixel a column
// stacked from the bottom by how many of the group's locations are in each category at the
// pixel's centre, MPI first, so the MPI share reads as the height of the red part; under
// the function filter the locations in other functions are grey on top (or not drawn).
import { ns } from './format.js';
import { CATEGORY_COLOURS, FILTERED_OUT } from './colours.js';

// synchronisation, point-to-point, collective, other MPI, file I/O, computation, threading
export const STACK_ORDER = [4, 2, 3, 5, 6, 1, 7];

export function drawGroupRow(ctx, tl, g, data) {
  const n = Math.max(1, data.locations);
  const px = tl.plotWidth() / data.width;
  const unit = (g.aggH - 1) / n;
  const bottom = g.aggY + g.aggH - 1;
  ctx.fillStyle = '#f4f4f6';  // idle: locations outside any region
  ctx.fillRect(tl.xOf(data.t0), g.aggY, tl.plotWidth(), g.aggH - 1);
  for (let i = 0; i < data.width; i += 1) {
    let y = bottom;
    for (const cat of STACK_ORDER) {
      const counts = data.categories[String(cat)];
      if (!counts || !counts[i]) continue;
      const h = counts[i] * unit;
      ctx.fillStyle = CATEGORY_COLOURS[cat];
      ctx.fillRect(tl.xOf(data.t0) + i * px, y - h, px + 0.3, h);
      y -= h;
    }
    // locations in functions outside the function filter: greyed on top, or left out
    const out = data.filtered ? data.filtered[i] : 0;
    if (out && !tl.hideFiltered) {
      ctx.fillStyle = FILTERED_OUT;
      ctx.fillRect(tl.xOf(data.t0) + i * px, y - out * unit, px + 0.3, out * unit);
    }
  }
}

// tooltip lines for time t in the aggregated row
export function describeGroupRow(tl, g, data, t) {
  const i = Math.floor(((t - data.t0) / (data.t1 - data.t0)) * data.width);
  const lines = [`${g.metahost}: ${data.locations} locations in one row (click to open)`, `t = ${ns(t)}`];
  if (i < 0 || i >= data.width) return lines;
  lines.push(`MPI share of this pixel: ${(data.mpi[i] / 10).toFixed(1)} % (mean of the locations)`);
  const parts = STACK_ORDER.filter((c) => (data.categories[String(c)] || [])[i])
    .map((c) => `${tl.meta.categories[c]} ${data.categories[String(c)][i]}`);
  if (data.filtered && data.filtered[i]) parts.push(`outside the function filter ${data.filtered[i]}`);
  if (parts.length) lines.push(`at the pixel's centre: ${parts.join(', ')}`);
  if (data.dominant[i] >= 0) lines.push(`most common: ${tl.names[data.dominant[i]]} (${data.dominant_count[i]} of ${data.locations})`);
  return lines;
}
