import sys
from pathlib import Path

# cube_samples.py (shared experiment builders) lives here.
sys.path.insert(0, str(Path(__file__).resolve().parent))
