"""`gridscope export`: a trace (and a run's wait states) as Perfetto JSON, OTF2 or parquet.

- `source`: what to export (trace folder or analysis folder) and its events as columns;
- `parquet`, `perfetto`, `otf2`: one module per format.
"""
