// The timeline's colours, in families an analyst can tell apart at a glance (as in Vampir):
//   computation   greens        (hue  90-150)
//   MPI           reds          (hue 340-20): point-to-point, collective, synchronisation, other
//   MPI file I/O  brown, threading violet
//   wait states   blues/cyans   (hue 180-240): drawn as a band over the (red) MPI bars, so
//                 they stand out from it and never look like computation or the highlight
//   highlight     yellow (the selected wait states), critical path magenta.
// Indices of CATEGORIES are the server's categories (gridscope.viewer.trace.CATEGORY_NAMES).

export const FAMILIES = [
  { id: 'computation', label: 'Computation', categories: [1] },
  { id: 'mpi', label: 'MPI', categories: [2, 3, 4, 5] },
  { id: 'io', label: 'I/O', categories: [6] },
  { id: 'threading', label: 'Threading', categories: [7] },
];

// idle, computation, p2p, collective, synchronisation, other MPI, MPI file I/O, threading
export const CATEGORY_COLOURS = [null, '#74c476', '#d62728', '#f0674a', '#8b0a1a', '#f28ca0', '#8c6d31', '#a58bd6'];

// one colour per wait-state pattern, all in the blue/cyan family
// (mid to light shades: a dark one looks black in a thin row)
const WAIT_PALETTE = ['#1fa8c9', '#3d5fe0', '#75dbe8', '#7a8cf5', '#1c7fb8', '#28c4d8',
  '#4a90e2', '#9ab4f8', '#2a6fd0', '#5cc8f0', '#5a78c8', '#1590a8'];
export function patternColour(index) { return WAIT_PALETTE[index % WAIT_PALETTE.length]; }

export const HIGHLIGHT = '#ffd400';        // selected wait states (and highlighted messages)
export const PATH_COLOUR = '#d0208e';      // the critical path and its cause -> wait links
export const FILTERED_OUT = '#dcdcdc';     // bars of functions outside the function filter
export const MSG_LOCAL = 'rgba(20,20,20,0.65)';
export const MSG_GRID = '#1f6feb';

export function isMpiCategory(cat) { return cat >= 2 && cat <= 6; }
