// A clicked cell of the message matrix highlights that sender -> receiver pair's messages on
// the timeline (two ranks, or every rank of two metahosts); the caption above the timeline
// says which pair and how many of its messages the window holds, and "clear" ends it.
export class PairHighlight {
  constructor({ timeline, rows, caption, text, clearButton, wrap, showTimeline }) {
    Object.assign(this, { timeline, rows, caption, text, wrap, showTimeline });
    this.pair = null;
    clearButton.addEventListener('click', () => this.clear());
  }

  // cell: { level: 'rank' | 'metahost', from, to, fromLabel, toLabel } (comm.js)
  show(cell) {
    const rowsOf = (key) => new Set(this.rows.flatMap((r, i) => ((cell.level === 'rank' ? r.rank : r.metahost) === key ? [i] : [])));
    this.pair = { ...cell, text: `messages ${cell.fromLabel} → ${cell.toLabel} highlighted` };
    this.caption.hidden = false;
    this.caption.dataset.from = String(cell.from);
    this.caption.dataset.to = String(cell.to);
    this.text.textContent = this.pair.text;
    this.showTimeline();
    const from = rowsOf(cell.from);
    this.timeline.setPairHighlight({ from, to: rowsOf(cell.to) });
    this.timeline.refresh();  // shown again: fetch for its real size before counting
    const y = this.timeline.yOf(Math.min(...from));
    if (y !== undefined) this.wrap.scrollTop = Math.max(0, y - 60);
  }

  // the timeline drew the window: count is how many of the pair's messages it holds
  drawn(count) {
    if (!this.pair) return;
    this.text.textContent = `${this.pair.text}: ${count
      ? `${count.toLocaleString('en')} in this window` : 'none in this window (zoom out: "Whole run")'}`;
  }

  clear() {
    this.pair = null;
    this.caption.hidden = true;
    this.timeline.setPairHighlight(null);
  }
}
