// Which wait-state patterns (and grid/local class) a metric of the Cube tree stands for.
// The analysis names metrics after the pattern ids of its wait-state table (late_sender …);
// a grid/local child is either named <pattern><sep>grid|local or displayed "grid"/"local"
// under its pattern.
const CLASS_SUFFIX = /^(.*?)[_.:\-/ ]?(grid|local)$/i;

export function patternOfMetric(metric, metricsById, patterns) {
  if (patterns.includes(metric.uniq)) return { pattern: metric.uniq, klass: null };
  const m = CLASS_SUFFIX.exec(metric.uniq);
  if (m && patterns.includes(m[1])) return { pattern: m[1], klass: m[2].toLowerCase() };
  const parent = metricsById[metric.parent];
  const disp = (metric.name || '').trim().toLowerCase();
  if (parent && patterns.includes(parent.uniq) && (disp === 'grid' || disp === 'local')) {
    return { pattern: parent.uniq, klass: disp };
  }
  return null;
}

// Every (pattern, class) in the subtree of a metric: clicking "Point-to-point" shows all of them.
export function patternsInSubtree(metricId, metrics, childrenOf, patterns) {
  const out = [];
  const stack = [metricId];
  while (stack.length) {
    const id = stack.pop();
    const hit = patternOfMetric(metrics[id], metrics, patterns);
    if (hit) out.push(hit);
    stack.push(...(childrenOf[id] || []));  // e.g. Late Sender covers Messages in Wrong Order
  }
  // a pattern with no class restriction covers its class children
  const whole = new Set(out.filter((h) => h.klass === null).map((h) => h.pattern));
  return out.filter((h) => h.klass === null || !whole.has(h.pattern));
}

// the wait states' colours live with the timeline's other colours
export { patternColour } from './colours.js';

