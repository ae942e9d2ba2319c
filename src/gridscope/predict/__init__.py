"""`gridscope predict`: replay a recorded run on a simulated grid (SimGrid SMPI) and analyse
the predicted trace (docs/predict.md). One module per concern: source (what is predicted),
actions (trace -> action streams, native), mapping (ranks -> simulated hosts), replay
(build and run the SMPI replayer), driver (the whole job)."""
