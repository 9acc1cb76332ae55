"""The package version; the txlog jar must have the same version."""

__version__: str = "0.1.0"
