"""The simulated metacomputer: platforms (TOML or presets) turned into SimGrid XML,
`gridscope cc` (mpicc / smpicc with the collector linked in) and simulated `record`.

Modules: `units` (bandwidth/latency strings), `platform` (model, TOML loading, presets),
`describe` (one-paragraph summaries), `simgrid_xml` (writer), `placement` (ranks → hosts),
`cc` (compile commands), `run` (smpirun driver), `apps` (the installed demo programs).
See docs/testbed.md.
"""
