// DOM helpers. Every string from the trace or the run goes in through textContent or
// attributes set with setAttribute: this module never parses markup.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'style') Object.assign(node.style, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function table(headers, rows, { onRowClick } = {}) {
  const head = el('tr', {}, headers.map((h) => el('th', { class: h.text ? 'text' : '', text: h.label ?? h })));
  const body = rows.map((cells, i) => el('tr', { class: onRowClick ? 'clickable' : '', onclick: onRowClick ? () => onRowClick(i) : undefined },
    cells.map((c, j) => el('td', { class: headers[j].text ? 'text' : (c && c.cls) || '', text: c && c.text !== undefined ? c.text : c }))));
  return el('table', {}, el('thead', {}, head), el('tbody', {}, body));
}
