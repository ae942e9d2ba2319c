// The clock correction's arithmetic (clc.hpp): forward amortisation of one location, the
// backward shift along the lower convex hull, latency choice and the piecewise-linear map.
#include <algorithm>
#include <cmath>
#include <vector>

#include "clc_impl.hpp"

namespace gs {

using clc_detail::advance;
using clc_detail::carried;

ForwardClock forward_clock(const std::vector<int64_t>& t, const std::vector<int64_t>& lower, double gamma) {
  ForwardClock f;
  f.corrected.resize(t.size());
  f.internal.resize(t.size());
  for (size_t k = 0; k < t.size(); ++k) {
    int64_t in = k == 0 ? t[0] : carried(t[k - 1], f.corrected[k - 1], t[k], gamma);
    f.internal[k] = in;
    f.corrected[k] = std::max(in, lower[k]);
  }
  return f;
}

namespace {

struct Point { double x, y; };

// Lower convex hull of points with strictly increasing x (Andrew's monotone chain).
std::vector<Point> lower_hull(const std::vector<Point>& pts) {
  std::vector<Point> h;
  for (const Point& p : pts) {
    while (h.size() >= 2) {
      const Point& o = h[h.size() - 2];
      const Point& a = h.back();
      if ((a.x - o.x) * (p.y - o.y) - (a.y - o.y) * (p.x - o.x) > 0) break;  // left turn: keep
      h.pop_back();
    }
    h.push_back(p);
  }
  return h;
}

}  // namespace

std::vector<int64_t> backward_shift(const std::vector<int64_t>& c, const std::vector<Jump>& jumps,
                                    const std::vector<Pin>& pins_in, double slope) {
  std::vector<int64_t> shift(c.size(), 0);
  std::vector<Pin> pins(pins_in);
  std::sort(pins.begin(), pins.end(),
            [](const Pin& a, const Pin& b) { return std::tie(a.knot, a.slack) < std::tie(b.knot, b.slack); });
  // one pin per event, the tightest
  pins.erase(std::unique(pins.begin(), pins.end(), [](const Pin& a, const Pin& b) { return a.knot == b.knot; }),
             pins.end());
  std::vector<Point> pts;
  for (const Jump& j : jumps) {
    if (j.delta <= 0 || j.knot == 0) continue;  // nothing before the first event
    // The ramp: from tl (shift 0) to the jump's time before the jump tr (shift delta), at most
    // `slope` steep unless the location's first event comes earlier.
    const double tr = double(c[j.knot] - j.delta);
    const double tl = std::max(double(c[0]), tr - double(j.delta) / slope);
    // ... bent below every send-like event in between: it may move by its slack only.
    pts.clear();
    // (the walk back stops at a send without slack: the hull is 0 before it)
    auto first_pin =
        std::lower_bound(pins.begin(), pins.end(), j.knot, [](const Pin& p, size_t k) { return p.knot < k; });
    auto p = first_pin;
    while (p != pins.begin() && double(c[std::prev(p)->knot]) > tl && std::prev(p)->slack > 0) --p;
    pts.push_back({tl, 0.0});
    if (p != pins.begin() && double(c[std::prev(p)->knot]) > tl) pts.back().x = double(c[std::prev(p)->knot]);
    for (; p != first_pin; ++p) pts.push_back({double(c[p->knot]), double(p->slack)});
    pts.push_back({tr, double(j.delta)});
    std::vector<Point> h = lower_hull(pts);
    // the hull is 0 up to its last vertex at 0 (a send without slack): start there
    size_t s = 0;
    while (s + 2 < h.size() && h[s + 1].y <= 0) ++s;
    size_t k = std::upper_bound(c.begin(), c.begin() + j.knot, int64_t(std::floor(h[s].x))) - c.begin();
    for (; k < j.knot; ++k) {
      double x = double(c[k]);
      if (x <= tl) continue;
      while (s + 2 < h.size() && x > h[s + 1].x) ++s;
      double y = h[s].y + (h[s + 1].y - h[s].y) * (x - h[s].x) / (h[s + 1].x - h[s].x);
      shift[k] = std::max(shift[k], int64_t(std::floor(y)));
    }
  }
  return shift;
}

int64_t floor_ticks(int64_t nanoseconds, uint64_t resolution) {
  return std::max<int64_t>(1, int64_t(__int128(nanoseconds) * resolution / 1000000000));
}

LatencyChoice choose_latency(int64_t observed_ticks, int64_t floor, int64_t option_ticks) {
  if (option_ticks >= 0) return {option_ticks, LatencySource::Option};
  if (observed_ticks != kNoObservation && observed_ticks >= floor) return {observed_ticks, LatencySource::Trace};
  return {floor, LatencySource::Floor};
}

ClockMap::ClockMap(std::vector<int64_t> original, std::vector<int64_t> corrected, double gamma)
    : t_(std::move(original)), c_(std::move(corrected)), gamma_(gamma) {}

int64_t ClockMap::at(int64_t t) const {
  if (t_.empty() || t < t_.front()) return t;
  size_t k = std::upper_bound(t_.begin(), t_.end(), t) - t_.begin() - 1;  // t_[k] <= t
  if (t_[k] == t) return c_[k];
  if (k + 1 == t_.size()) return carried(t_[k], c_[k], t, gamma_);
  __int128 num = __int128(c_[k + 1] - c_[k]) * (t - t_[k]);
  return c_[k] + int64_t(num / (t_[k + 1] - t_[k]));
}

}  // namespace gs
