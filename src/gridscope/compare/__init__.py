"""`gridscope compare`: vanilla against topology-aware collectives on a simulated platform.

bounds (physical lower bounds), collbench (the benchmark's arguments and output), rules (the
rule table `GRIDSCOPE_COLL=auto` reads), runs (recording and analysing through the CLI),
report (compare.json, the terminal table, the plot, the wait-state comparison).
"""
