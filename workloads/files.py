"""Reading the workload floor's data files (GPUs, models): TOML in, InputErrors that name the file, the table
and the key out."""

from __future__ import annotations

from core import toml_files
from core.errors import InputError, did_you_mean, shown
from core.fields import Spec
from core.toml_files import TAGS


def read_toml(path) -> dict:
    """Parse a TOML file; every failure is an InputError naming the file."""
    return toml_files.read(path)


def check_known(where: str, keys, known, what: str = "key") -> None:
    """InputError for the first key not in `known`, with a suggestion and the known keys."""
    for key in keys:
        if key not in known:
            raise InputError(f"{where}: unknown {what} '{key}'{did_you_mean(key, known)}; "
                             f"known: {', '.join(known)}")


def parse_spec(where: str, key: str, spec: Spec, value):
    """One value through its declaration; the error names where it came from."""
    try:
        return spec.parse(value)
    except InputError as exc:
        raise InputError(f"{where} {key} = {shown(value)}: {exc}") from None


def check_source(where: str, key: str, text) -> str:
    """A source text must be a non-empty string carrying one of the tags."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where} sources.{key}: expected a non-empty text naming the source")
    if not any(tag in text for tag in TAGS):
        raise InputError(f"{where} sources.{key} = {text!r}: name its tag, one of {', '.join(TAGS)}")
    return text
