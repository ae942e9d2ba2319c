// The first view of a large run reads its trace after the page has opened (issue 27):
// until then the timeline's canvas says how far the reading got, or why it failed.
import { get } from './api.js';

const POLL_MS = 200;  // a request of a few bytes; the picture waits at most this long after the read

// "reading the trace… 42 %" (or the error) drawn on the canvas; data-loading / data-error
// carry the same text for tests and screen readers.
export function drawLoadState(canvas, wrap, text, error = false) {
  canvas.dataset.ready = '0';
  if (error) canvas.dataset.error = text; else canvas.dataset.loading = text;
  canvas.setAttribute('aria-label', `Timeline: ${text}`);
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(200, wrap.clientWidth - 2);
  const height = 60;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, width, height);
  g.fillStyle = error ? '#b00020' : '#555';
  g.font = '14px sans-serif';
  g.fillText(text, 12, 34);
}

export function clearLoadState(canvas) {
  delete canvas.dataset.loading;
  canvas.setAttribute('aria-label', 'Timeline');
}

export function loadText(load) {
  return load.error || `${load.step || 'reading the trace'}… ${load.progress} %`;
}

// Poll /api/load until the server has read the trace; onProgress(load) on each answer.
// Resolves with the last state ({loading: false, error: null | "one line"}).
export async function waitForTrace(onProgress) {
  for (;;) {
    const load = await get('/api/load');
    if (!load.loading) return load;
    onProgress(load);
    await new Promise((resolve) => { setTimeout(resolve, POLL_MS); });
  }
}
