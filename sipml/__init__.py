"""sipml: the application — design-point files, the `sipml` command line, reports."""

__version__ = "0.2.0"
