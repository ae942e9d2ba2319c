import sys
from pathlib import Path

# Shared experiment builders (cube_samples.py) live in tests/cube.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cube"))
