"""gridscope's version, in a module of its own: what writes files names it (Cube's Creator,
reports) without loading the package's entry points."""

__version__ = "0.1.0"
