"""The browser viewer behind `gridscope view`: a local HTTP server over an analysis folder.

- `trace`: the trace as memory-mapped columns (native dump, cached beside the run);
- `lod`: level-of-detail summaries of a time window (what the timeline asks for);
- `profile`: Cube-like metric x call path x system aggregation of profile.cubex;
- `comm`: communication matrices; `run`: the analysis folder; `server`: HTTP routes.
"""
