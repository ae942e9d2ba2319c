// The timeline's legend: one group per colour family (computation, MPI classes, I/O,
// threading, wait states), then the highlight, messages and the critical path. Only the
// categories the trace holds are listed; every swatch says its family (data-family).
import { clear, el } from './dom.js';
import { CATEGORY_COLOURS, FAMILIES, HIGHLIGHT, MSG_GRID, PATH_COLOUR, patternColour } from './colours.js';

function swatch(family, colour, text, line = 0) {
  const style = { background: colour };
  if (line) style.height = `${line}px`;
  return el('span', { class: 'legend-item', 'data-family': family }, el('i', { style }), text);
}

function group(family, label, items) {
  return el('span', { class: 'legend-family', 'data-family': family }, el('b', { text: label }), items);
}

export function renderLegend(box, meta) {
  clear(box);
  const present = new Set(meta.callpaths ? meta.callpaths.category : []);
  for (const f of FAMILIES) {
    const cats = f.categories.filter((c) => present.has(c));
    if (!cats.length) continue;
    box.append(group(f.id, f.label, cats.map((c) => swatch(f.id, CATEGORY_COLOURS[c], meta.categories[c].replace(/^MPI /, '')))));
  }
  if (meta.patterns.length) {
    box.append(group('wait', 'Wait states', [
      ...meta.patterns.map((p, i) => swatch('wait', patternColour(i), p)),
      swatch('highlight', HIGHLIGHT, 'selected'),
    ]));
  }
  box.append(group('message', 'Messages', [swatch('message', '#141414', 'within a metahost', 2),
    swatch('message', MSG_GRID, 'between metahosts', 3)]));
  if (meta.critical_path_count) {
    box.append(group('path', 'Critical path', [swatch('path', PATH_COLOUR, 'dashed: delay → wait', 3)]));
  }
}
