"""core.toml_files keeps the parse of a text it has read: a caller's changes never reach the next reader, and a file
whose text changed is parsed afresh, however soon after (the parse is found by the text, not the file's time)."""

from __future__ import annotations

import pytest

from core import toml_files
from core.errors import InputError


def test_each_read_returns_tables_of_its_own(tmp_path):
    path = tmp_path / "d.toml"
    path.write_text('[link]\ndata_rate = "25 Gbit/s"\nlist = [1, 2]\n')
    first = toml_files.read(path)
    first["link"]["data_rate"] = "changed"
    first["link"]["list"].append(3)
    assert toml_files.read(path) == {"link": {"data_rate": "25 Gbit/s", "list": [1, 2]}}


def test_a_rewritten_file_is_parsed_afresh(tmp_path):
    path = tmp_path / "d.toml"
    path.write_text("a = 1\n")
    assert toml_files.read(path) == {"a": 1}
    path.write_text("a = 2\n")  # the same size, within the file system's time resolution
    assert toml_files.read(path) == {"a": 2}


def test_a_kept_parse_is_the_parsers(monkeypatch):
    text = 'x = 1.0000000000000002\nt = 1979-05-27T07:32:00Z\n[s]\nk = "é"\n'
    monkeypatch.setattr(toml_files, "_parsed", {})
    fresh = toml_files.loads(text)
    assert text in toml_files._parsed
    assert toml_files.loads(text) == fresh and toml_files.loads(text) is not fresh


def test_malformed_text_is_refused_each_time():
    for _ in range(2):
        with pytest.raises(InputError, match="malformed TOML"):
            toml_files.loads("a = = 1")


def test_at_most_parsed_kept_texts_are_kept_the_last_used(monkeypatch):
    monkeypatch.setattr(toml_files, "_parsed", {})
    toml_files.loads("a = 0\n")
    for k in range(1, toml_files.PARSED_KEPT + 5):
        toml_files.loads(f"a = {k}\n")
        toml_files.loads("a = 0\n")  # used again and again: kept
    assert len(toml_files._parsed) == toml_files.PARSED_KEPT and "a = 0\n" in toml_files._parsed
    assert "a = 1\n" not in toml_files._parsed
    big = "a = 1\n" + "# " + "x" * toml_files.PARSED_KEPT_CHARS + "\n"
    assert toml_files.loads(big) == {"a": 1} and big not in toml_files._parsed
