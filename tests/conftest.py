"""Every test sees output as a pipe sees it without COLUMNS (tables unwrapped), whatever the shell exports: a test
that wants a width sets it."""

import os

os.environ.pop("COLUMNS", None)
