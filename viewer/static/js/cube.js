// Cube-like three-pane browser: metric tree × call tree × system tree.
// A collapsed node shows its inclusive value (itself and everything below), an expanded
// node its exclusive value, as in Cube. Values are exclusive in the data (gridscope.cube).
import { get } from './api.js';
import { clear, el } from './dom.js';
import { diffDistribution, distribution } from './distribution.js';
import { diverging, heat, percent, value } from './format.js';

function childrenIndex(items) {
  const children = items.map(() => []);
  const roots = [];
  items.forEach((item, i) => (item.parent >= 0 ? children[item.parent].push(i) : roots.push(i)));
  return { children, roots };
}

function subtreeSum(id, children, own) {
  let total = own(id);
  for (const c of children[id]) total += subtreeSum(c, children, own);
  return total;
}

export class CubeBrowser {
  constructor(profile, { onMetricSelected, onCallpathSelected, tags } = {}) {
    this.p = profile;
    this.diff = profile.diff;
    this.onMetricSelected = onMetricSelected || (() => {});
    this.onCallpathSelected = onCallpathSelected || (() => {});
    this.tags = tags || (() => null);
    this.m = childrenIndex(profile.metrics);
    this.c = childrenIndex(profile.callpaths);
    // exclusive (metric, call path) totals over all ranks
    this.mc = profile.metrics.map(() => new Map());
    for (const [m, c, v] of profile.mc) this.mc[m].set(c, v);
    this.metricOwn = profile.metrics.map((_, m) => [...this.mc[m].values()].reduce((a, b) => a + b, 0));
    // a difference experiment with its BASE at hand: base, new (= base + delta) and the
    // delta's share of base beside every node of the metric and call trees
    this.base = this.diff && (profile.base_mc || []).length ? profile.metrics.map(() => new Map()) : null;
    if (this.base) for (const [m, c, v] of profile.base_mc) this.base[m].set(c, v);
    this.metricOwnBase = this.base ? this.base.map((mc) => [...mc.values()].reduce((a, b) => a + b, 0)) : null;
    // collapsed at the root, as Cube opens: every node shows its inclusive value (100 % at the root)
    this.openMetrics = new Set();
    // metrics that are zero everywhere (bytes put/get of a run without RMA, ...) are hidden
    // until asked for: subtree totals of absolute values, so a difference's +/- stays shown
    this.showZero = false;
    this.metricSubtreeAbs = profile.metrics.map((_, m) => subtreeSum(m, this.m.children,
      (x) => [...this.mc[x].values()].reduce((a, b) => a + Math.abs(b), 0)));
    this.openCalls = new Set(this.c.roots);
    this.filter = '';  // Find: only matching nodes and their ancestors (opened), both trees
    this.openSystem = new Set();
    this.metric = this.m.roots[0] ?? 0;
    this.callpath = null;
    this.rankValues = null;
    this.rankRequest = 0;
  }

  mount(metricPane, callPane, systemPane) {
    this.panes = { metricPane, callPane, systemPane };
    this.render();
  }

  // ----------------------------------------------------------------- values
  metricSet(id) {
    if (this.openMetrics.has(id)) return [id];
    const out = [];
    const stack = [id];
    while (stack.length) { const x = stack.pop(); out.push(x); stack.push(...this.m.children[x]); }
    return out;
  }

  metricValue(id) {
    return this.openMetrics.has(id) ? this.metricOwn[id] : subtreeSum(id, this.m.children, (x) => this.metricOwn[x]);
  }

  metricRoot(id) {
    let x = id;
    while (this.p.metrics[x].parent >= 0) x = this.p.metrics[x].parent;
    return x;
  }

  callOwn(c) {
    let total = 0;
    for (const m of this.metricSet(this.metric)) total += this.mc[m].get(c) || 0;
    return total;
  }

  callValue(c) {
    return this.openCalls.has(c) ? this.callOwn(c) : subtreeSum(c, this.c.children, (x) => this.callOwn(x));
  }

  // BASE values of the same nodes (undefined: not a difference with its base)
  metricBase(id) {
    if (!this.base) return undefined;
    return this.openMetrics.has(id) ? this.metricOwnBase[id] : subtreeSum(id, this.m.children, (x) => this.metricOwnBase[x]);
  }

  callBase(c) {
    if (!this.base) return undefined;
    const own = (x) => this.metricSet(this.metric).reduce((a, m) => a + (this.base[m].get(x) || 0), 0);
    return this.openCalls.has(c) ? own(c) : subtreeSum(c, this.c.children, own);
  }

  swatch(v, total, maxAbs) {
    const colour = this.diff ? diverging(maxAbs ? v / maxAbs : 0) : heat(total ? v / total : 0);
    return el('span', { class: 'swatch', style: { background: colour } });
  }

  // a difference's node: the delta's share of base (signed), and base → new
  diffParts(v, base, uom) {
    if (base === undefined) return { pct: '', basenew: null };
    const share = base ? `${v > 0 ? '+' : ''}${percent(v, Math.abs(base))}` : (v ? 'new' : '');
    return { pct: share, basenew: el('span', { class: 'basenew', text: `${value(base, uom)} → ${value(base + v, uom)}` }) };
  }

  row({ depthKey, id, open, hasChildren, selected, v, total, maxAbs, uom, label, title, onSelect, onToggle, extra, base }) {
    const d = this.diff ? this.diffParts(v, base, uom) : null;
    return el('div', {
      class: `node${selected ? ' selected' : ''}`, role: 'treeitem', 'data-key': depthKey, 'data-id': id,
      'aria-expanded': hasChildren ? String(open) : undefined, 'aria-selected': String(selected), title,
      onclick: (e) => { e.stopPropagation(); onSelect(); },
    },
    el('span', { class: 'toggle', text: hasChildren ? (open ? '▾' : '▸') : '', onclick: (e) => { e.stopPropagation(); if (hasChildren) onToggle(); } }),
    this.swatch(v, total, maxAbs),
    // percent mode (Cube's "own root percent"): the share takes the value's place
    el('span', { class: 'value', text: this.percentMode && !d ? percent(v, total) || '–' : value(v, uom) }),
    el('span', { class: 'pct', text: d ? d.pct : this.percentMode ? '' : percent(v, total) }),
    d ? d.basenew : null,
    el('span', { class: 'label', text: label }),
    extra || null);
  }

  // ----------------------------------------------------------------- render
  render() {
    this.renderMetrics();
    this.renderCalls();
    this.renderSystem();
  }

  renderMetrics() {
    const pane = clear(this.panes.metricPane);
    const rootTotals = new Map(this.m.roots.map((r) => [r, subtreeSum(r, this.m.children, (x) => this.metricOwn[x])]));
    const maxAbs = Math.max(1e-300, ...this.p.metrics.map((_, i) => Math.abs(this.metricOwn[i])));
    const f = this.filtered(this.p.metrics, (m) => m.name);
    const shown = (id) => (f.keep ? f.keep.has(id) : this.showZero || this.metricSubtreeAbs[id] > 0 || id === this.metric);
    const build = (id) => {
      const metric = this.p.metrics[id];
      const kids = this.m.children[id].filter(shown);
      const open = this.openMetrics.has(id) || (f.keep !== null && kids.length > 0);
      const tag = this.tags(metric);
      const node = this.row({
        depthKey: metric.uniq, id, open, hasChildren: kids.length > 0, selected: id === this.metric,
        v: this.metricValue(id), total: rootTotals.get(this.metricRoot(id)), maxAbs, uom: metric.uom, base: this.metricBase(id),
        label: metric.name, title: metric.descr,
        onSelect: () => this.selectMetric(id),
        onToggle: () => { open ? this.openMetrics.delete(id) : this.openMetrics.add(id); this.render(); },
        extra: tag ? el('span', { class: `tag ${tag.klass || ''}`, text: tag.text }) : null,
      });
      if (f.match.has(id)) node.classList.add('match');
      return open && kids.length ? [node, el('div', { class: 'children', role: 'group' }, kids.map(build))] : [node];
    };
    pane.append(...this.m.roots.filter(shown).flatMap(build));
  }

  // Find (Cube's Find): a case-insensitive substring of a metric's display name or a call
  // path's region names; matches are marked, their ancestors opened, the rest hidden
  setFilter(text) {
    this.filter = text.trim().toLowerCase();
    this.render();
  }

  // ids to show under the filter (null: everything), and the matches themselves
  filtered(items, text) {
    if (!this.filter) return { keep: null, match: new Set() };
    const match = new Set(items.map((x, i) => (text(x).toLowerCase().includes(this.filter) ? i : -1)).filter((i) => i >= 0));
    const keep = new Set();
    for (const i of match) for (let x = i; x >= 0 && !keep.has(x); x = items[x].parent) keep.add(x);
    return { keep, match };
  }

  setValueMode(mode) {
    this.percentMode = mode === 'percent';
    this.render();
  }

  setShowZero(on) {
    this.showZero = on;
    this.renderMetrics();
  }

  selectMetric(id) {
    this.metric = id;
    this.render();
    this.onMetricSelected(id);
  }

  renderCalls() {
    const pane = clear(this.panes.callPane);
    const metric = this.p.metrics[this.metric];
    const total = this.c.roots.reduce((a, r) => a + subtreeSum(r, this.c.children, (x) => this.callOwn(x)), 0);
    const maxAbs = Math.max(1e-300, ...this.p.callpaths.map((_, i) => Math.abs(this.callOwn(i))));
    const f = this.filtered(this.p.callpaths, (c) => c.name);
    const build = (id) => {
      const cp = this.p.callpaths[id];
      const kids = f.keep ? this.c.children[id].filter((k) => f.keep.has(k)) : this.c.children[id];
      const open = this.openCalls.has(id) || (f.keep !== null && kids.length > 0);
      const node = this.row({
        depthKey: cp.path, id, open, hasChildren: kids.length > 0, selected: id === this.callpath,
        v: this.callValue(id), total, maxAbs, uom: metric ? metric.uom : 'sec', label: cp.name, title: cp.path,
        base: this.callBase(id),
        onSelect: () => { this.callpath = this.callpath === id ? null : id; this.renderCalls(); this.renderSystem(); this.callpathChanged(); },
        onToggle: () => { open ? this.openCalls.delete(id) : this.openCalls.add(id); this.renderCalls(); this.renderSystem(); this.callpathChanged(); },
      });
      if (f.match.has(id)) node.classList.add('match');
      return open && kids.length ? [node, el('div', { class: 'children', role: 'group' }, kids.map(build))] : [node];
    };
    pane.append(...this.c.roots.filter((r) => !f.keep || f.keep.has(r)).flatMap(build));
  }

  callpathChanged() {
    if (this.callpath === null) this.onCallpathSelected(null, false);
    else this.onCallpathSelected(this.p.callpaths[this.callpath].path, !this.openCalls.has(this.callpath));
  }

  async renderSystem() {
    const ticket = ++this.rankRequest;
    const params = { metric: this.metric, mincl: this.openMetrics.has(this.metric) ? 0 : 1 };
    if (this.callpath !== null) {
      params.callpath = this.callpath;
      params.cincl = this.openCalls.has(this.callpath) ? 0 : 1;
    }
    let values;
    let base = null;  // a difference's BASE per rank, for its base/new/delta distributions
    try {
      const [own, before] = await Promise.all([get('/api/profile/system', params),
        this.base ? get('/api/profile/system', { ...params, of: 'base' }) : null]);
      values = new Map(own.values);
      if (before) base = new Map(before.values);
    } catch (err) {
      clear(this.panes.systemPane).append(el('p', { class: 'muted', text: `no values: ${err.message}` }));
      return;
    }
    if (ticket !== this.rankRequest) return;
    const pane = clear(this.panes.systemPane);
    const metric = this.p.metrics[this.metric];
    const uom = metric ? metric.uom : 'sec';
    const groups = new Map();
    for (const r of this.p.ranks) {
      if (!groups.has(r.metahost)) groups.set(r.metahost, new Map());
      const nodes = groups.get(r.metahost);
      if (!nodes.has(r.node)) nodes.set(r.node, []);
      nodes.get(r.node).push(r.rank);
    }
    const total = [...values.values()].reduce((a, b) => a + b, 0);
    const maxAbs = Math.max(1e-300, ...[...values.values()].map(Math.abs));
    // a difference without its BASE at hand: the deltas' distribution only
    pane.append(base ? diffDistribution(values, base, uom) : distribution(values, uom, this.diff ? 'Δ per rank' : 'ranks'));
    const sum = (ranks) => ranks.reduce((a, r) => a + (values.get(r) || 0), 0);
    // a difference with its BASE: every node also shows its share of base and base → new
    const baseOf = (ranks) => (base ? ranks.reduce((a, r) => a + (base.get(r) || 0), 0) : undefined);
    for (const [mh, nodes] of groups) {
      const key = `m:${mh}`;
      const open = this.openSystem.has(key);
      const ranks = [...nodes.values()].flat();
      pane.append(this.row({
        depthKey: key, id: mh, open, hasChildren: true, selected: false, v: sum(ranks), base: baseOf(ranks), total, maxAbs, uom,
        label: `${mh} (metahost, ${ranks.length} ranks)`, title: mh,
        onSelect: () => {}, onToggle: () => { open ? this.openSystem.delete(key) : this.openSystem.add(key); this.renderSystem(); },
      }));
      if (!open) continue;
      const box = el('div', { class: 'children', role: 'group' });
      for (const [node, nodeRanks] of nodes) {
        const nkey = `n:${mh}/${node}`;
        const nopen = this.openSystem.has(nkey);
        box.append(this.row({
          depthKey: nkey, id: node, open: nopen, hasChildren: true, selected: false, v: sum(nodeRanks), base: baseOf(nodeRanks), total, maxAbs, uom,
          label: node, title: node, onSelect: () => {},
          onToggle: () => { nopen ? this.openSystem.delete(nkey) : this.openSystem.add(nkey); this.renderSystem(); },
        }));
        if (nopen) {
          box.append(el('div', { class: 'children', role: 'group' }, nodeRanks.map((r) => this.row({
            depthKey: `r:${r}`, id: r, open: false, hasChildren: false, selected: false, v: values.get(r) || 0, base: baseOf([r]), total, maxAbs, uom,
            label: `Rank ${r}`, title: `MPI rank ${r}`, onSelect: () => {}, onToggle: () => {},
          }))));
        }
      }
      pane.append(box);
    }
  }
}
