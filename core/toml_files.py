"""Reading the project's TOML files (design points, catalogs) with every failure as one InputError line:
missing, unreadable or oversized files, text that is not UTF-8, malformed TOML, numbers too long for Python to
read, nesting too deep, and anything that is not a regular file (a FIFO would wait forever). A file is read at most
MAX_TOML_BYTES at a time, so no input makes the reader run away. A UTF-8 byte-order mark at the start is ignored
(editors on Windows write one)."""

from __future__ import annotations

import os
import pickle
import re
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

from core.errors import InputError

TAGS = ("[verbatim]", "[restated]", "[inferred]", "[assumed]")  # how sure a data file's number is (shared/README)
MAX_TOML_BYTES = 1 << 20  # [assumed] design and catalog files are a few kB; larger input is refused unparsed
PARSED_KEPT = 128  # texts whose parse is kept, the last used: more than the 77 shipped TOML files
PARSED_KEPT_CHARS = 1 << 16  # [assumed] of at most 65,536 characters each (the shipped files are ≤ 20,000): with
# their texts, at most ~24 MB kept
_parsed: dict[str, bytes] = {}  # text → its parse, pickled; the most recently used last


def loads(text: str) -> dict:
    """tomllib.loads, its failures as InputError. As core keeps its unit and declaration tables, it keeps the parse
    of the texts it has read (the shipped designs, models, stacks, GPUs and catalogs, which every command reads and
    a process running many commands — the Python API, a notebook, the test suite — reads again and again): a text
    parsed before is not parsed again, its parse kept pickled so that each call returns tables of its own (a caller
    may change them) at a tenth of the parser's cost. Found by the text itself, a file that changed is read anew."""
    kept = _parsed.pop(text, None)
    if kept is not None:
        _parsed[text] = kept  # the most recently used last
        return pickle.loads(kept)
    parsed = _parse(text)
    if len(text) <= PARSED_KEPT_CHARS:
        try:
            kept = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        except RecursionError:  # nested deeper than pickle goes: parsed again next time
            return parsed
        while len(_parsed) >= PARSED_KEPT:  # the least recently used out (threads may race here: none fails)
            try:
                _parsed.pop(next(iter(_parsed)), None)
            except (RuntimeError, StopIteration):
                break
        _parsed[text] = kept
    return parsed


def _parse(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"malformed TOML: {exc}") from None
    except ValueError:  # Python refuses to read an integer of more than 4300 digits
        raise InputError("malformed TOML: a number has more than 4300 digits") from None
    except RecursionError:
        raise InputError("malformed TOML: arrays or tables nested too deeply") from None


def read(path: str | Path, what: str = "TOML file") -> dict:
    """The parsed file at `path`; every problem an InputError that starts with the path."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opened so does not wait for a writer
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode) and not stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
                raise InputError(f"{path}: not a regular file (a FIFO, device or socket), expected a {what}")
            data = fh.read(MAX_TOML_BYTES + 1)
    except InputError:  # not a regular file (an InputError is a ValueError too: not the case below)
        raise
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:  # a NUL in the name
        raise InputError(f"{str(path)!r}: cannot read ({exc})") from None  # quoted: the NUL shown as \x00
    if len(data) > MAX_TOML_BYTES:
        raise InputError(f"{path}: larger than {MAX_TOML_BYTES // 1024} KiB, expected a {what}")
    try:
        return loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


_TABLE_HEADER = re.compile(r"\[\s*([A-Za-z0-9_-]+)\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$")


def tables_by_name(text: str) -> dict[str, str]:
    """The text of each top-level table of a TOML file (`[name]` and `[name.*]`, each header on a line of its own:
    the GPU and stack files), by name; what comes before the first table (comments) is left out."""
    lines: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines(keepends=True):
        header = _TABLE_HEADER.match(line)
        if header:
            current = lines.setdefault(header.group(1), [])
        if current is not None:
            current.append(line)
    return {name: "".join(kept) for name, kept in lines.items()}


class OnDemand(Mapping):
    """A mapping whose values are made when first asked for, each once, by `make(key)` for the keys given: a
    command that trains one model on one GPU under one stack reads those alone of the shipped files."""

    def __init__(self, keys, make):
        self._keys, self._make, self._made = dict.fromkeys(keys), make, {}

    def __getitem__(self, key):
        if key not in self._made:
            if key not in self._keys:
                raise KeyError(key)
            self._made[key] = self._make(key)
        return self._made[key]

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)
