// The timeline's function filter (Vampir's): the analyst types or picks function (region)
// names; bars of every other function are greyed, or hidden with "hide others". The chosen
// names are chips (click one to drop it), "clear" ends the filter.
import { clear, el } from './dom.js';

export class FunctionFilter {
  // names: every region name of the trace; onChange(Set|null, hide); onError(text)
  constructor({ input, datalist, chips, clearButton, hideBox, names, onChange, onError }) {
    this.input = input;
    this.chips = chips;
    this.clearButton = clearButton;
    this.hideBox = hideBox;
    this.names = [...new Set(names)].sort((a, b) => a.localeCompare(b));
    this.onChange = onChange;
    this.onError = onError;
    this.chosen = new Set();
    clear(datalist).append(...this.names.map((n) => el('option', { value: n })));
    input.addEventListener('change', () => { if (input.value.trim()) this.add(input.value); });
    clearButton.addEventListener('click', () => this.clear());
    hideBox.addEventListener('change', () => this.changed());
    this.render();
  }

  // "name" adds that function (any case); otherwise every function whose name contains the
  // text; nothing matching is one line of error and changes nothing.
  add(text) {
    const t = text.trim().toLowerCase();
    const exact = this.names.filter((n) => n.toLowerCase() === t);
    const found = exact.length ? exact : this.names.filter((n) => n.toLowerCase().includes(t));
    if (!found.length) {
      this.onError(`functions: no function named or containing "${text.trim()}"`);
      return;
    }
    for (const n of found) this.chosen.add(n);
    this.input.value = '';
    this.changed();
  }

  remove(name) {
    this.chosen.delete(name);
    this.changed();
  }

  clear() {
    this.chosen.clear();
    this.changed();
  }

  changed() {
    this.render();
    this.onChange(this.chosen.size ? new Set(this.chosen) : null, this.hideBox.checked);
  }

  render() {
    const box = clear(this.chips);
    box.hidden = this.chosen.size === 0;
    this.clearButton.hidden = this.chosen.size === 0;
    if (!this.chosen.size) return;
    box.append(el('span', { class: 'muted', text: 'only these functions in colour:' }));
    for (const name of this.chosen) {
      box.append(el('button', { class: 'chip', 'data-function': name, title: `drop ${name} from the filter`,
        onclick: () => this.remove(name) }, name, el('span', { class: 'muted', text: '×' })));
    }
  }
}
