"""Every short handle a shipped source string cites resolves in docs/references.md.

The field declarations, the component catalog, the GPU and model files and the built-in designs cite their
origin with handles a user of the installed package cannot look up by themselves: equation tags (E1 … E38,
E5b, E18a …), reference cases (R1 … R17), the names of the project's reference notes (sipml.md, …),
bracketed source keys ([sim], …) and the plain source keys of workloads-2.md (K22, N21, BK, …). Each one found
must have an entry in docs/references.md: a heading whose first word is the handle, or a table row whose first
cell is the handle. A numbered entry cited after its note's name ("fabrics-2026.md K22", the TPU v5p row, not
Korthikanti's K22) must be a row of that note's own table ("### fabrics-2026.md entries").

What is scanned: the `source` and `help` of every declared field (the design sections of `sipml.design_files` and every
other declared dataclass of photonics, fabric and workloads), the text of the shipped TOML files (values and
comments; table headers are names, not citations), the module docstrings of photonics, fabric and workloads and,
for the handles that cannot be confused with anything else (equation tags, cases, note names, workloads-2 keys),
every string literal of the packages' Python files.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import pkgutil
import re
from collections import defaultdict
from pathlib import Path

import pytest

from core.fields import specs
from sipml.design_files import ALL_SECTIONS
from tests.source_trees import nodes, tree

ROOT = Path(__file__).resolve().parents[2]
REFERENCES = ROOT / "docs" / "references.md"
SHARED_NOTES = ROOT.parent / "shared" / "reference"  # the reference notes, beside the project (not shipped)

DATA_FILES = ("fabric/catalog/components.toml", "workloads/gpus.toml", "workloads/sipml_cases.toml",
              "workloads/stacks.toml", "workloads/zoo/*.toml", "sipml/designs/*.toml", "sipml/cases/*.toml",
              "sipml/cases/models/*.toml")
DECLARING_PACKAGES = ("photonics", "fabric", "workloads")  # field declarations and module docstrings
LITERAL_PACKAGES = ("core", "photonics", "fabric", "workloads", "sipml")  # string literals

NOTE_NAMES = {"sipml.md", "photonics.md", "photonics-2.md", "photonics-4.md", "workloads.md", "workloads-2.md",
              "workloads-3.md", "fabric-photonics-3.md", "fabrics-2026.md", "reliability.md", "costs-power.md",
              "README.md"}  # README.md: shared/README.md, where the confidence tags are defined
# Notes with numbered entries of their own (K1…, Y1…) that the code cites after the note's name. A plain K22 is
# also Korthikanti et al. (workloads-2.md), so "fabrics-2026.md K22" must resolve to a row of that note's own table
# in docs/references.md, under a heading "… fabrics-2026.md entries …", not to any row whose first cell is K22.
ROW_NOTES = ("fabrics-2026.md", "reliability.md")
_ROW = r"[A-Z]\d{1,2}[a-z]?"
NOTE_ROW = re.compile(r"\b(" + "|".join(map(re.escape, ROW_NOTES)) + rf")`? ({_ROW}(?:(?:, |–){_ROW}\b)*)\b")
EXTERNAL_MD = {"docs/references.md",  # the project's own table of sources, shipped with it
               "compute/accelerator/README.md",  # a file of BK (Bekman's open book), cited with its key
               "doc/PERFORMANCE.md",  # a file of NVIDIA/nccl-tests, cited with the repository
               # files of NVIDIA/DeepLearningExamples and mosaicml/llm-foundry, cited with their repository
               "MxNet/Classification/RN50v1.5/README.md", "PyTorch/Classification/ConvNets/resnet50v1.5/README.md",
               "PyTorch/LanguageModeling/BERT/README.md", "scripts/train/benchmarking/README.md",
               "docs/performance.md",  # a file of pytorch/torchtitan, cited with its repository
               # files of NVIDIA-NeMo/Megatron-Bridge, cited with its repository
               "docs/performance-summary.md", "docs/performance-summary-archive.md",
               "nemo_megatron/README_175b.md",  # a file of NVIDIA/dgxc-benchmarking, cited with its repository
               # a file of NVIDIA/Megatron-LM, cited with its repository
               "docs/discussions/megatron-fsdp-user-guide/megatron-fsdp-user-guide.md",
               "megatron/core/distributed/fsdp/src/README.md", "megatron/core/transformer/moe/README.md",
               "examples/megatron-turing-nlg/README.md"}  # a file of cli99/llm-analysis, cited with its repository
CONFIDENCE_TAGS = ("verbatim", "restated", "inferred", "assumed")
NOT_KEYS = {"GHz",  # a unit in a formula: B = 0.75·BR[GHz]
            "name", "sources",  # TOML tables named in the file headers of gpus.toml and the zoo
            "job"}  # a mix file's [[job]] tables (workloads.mix)
NOT_YEAR_KEYS = {"SC20", "SC21",  # the Supercomputing conference, written beside the paper it names
                 "BF16", "FP16", "FP32", "FP64", "TF32",  # precisions
                 "CP16", "DP64",  # parallel layouts (context parallelism over 16 GPUs, data parallelism over 64)
                 "NVL72"}  # a product name (GB200 NVL72: 72 GPUs in one NVLink domain)
# workloads-2.md's keys that have no two-digit year (those that do, K22, N21, …, are found by YEAR_KEY)
PLAIN_KEYS = ("MLM", "DS-blog", "PT-FSDP", "DS3", "KAP", "DLRM-repo", "MLC", "TR", "NV-H200", "NV-GB", "NV-NVL",
              "NV-BCM", "NV-MNNVL", "BK", "L3", "XLA-MM", "GK", "MS", "NVMM", "EPR", "AWS-CB", "Mercatus",
              "EIA EPA 2023", "ES", "UI", "UI-2024", "NCCL", "NCCL-RN", "NCCL-1031", "HPCX", "YB")

EQUATION = re.compile(r"\bE\d{1,2}[a-z]?\b")  # E5, E11b, E18a; not 2.4E-4 (no word boundary) nor [E3cd]
CASE = re.compile(r"\bR\d{1,2}\b")
NOTE = re.compile(r"(?:[\w.-]+/)*[\w.-]+\.md\b")
BRACKET_KEY = re.compile(r"\[([A-Za-z][A-Za-z0-9-]{0,9})\]")  # [sim], [PS], [E3cd]; not [gpu.a100], [0, T]
YEAR_KEY = re.compile(r"\b[A-Z]{1,3}\d{2}\b")  # K22, N21, R20, J24, C22
PLAIN_KEY = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(PLAIN_KEYS, key=len, reverse=True)))
                       + r")(?![\w-])")
TOML_HEADER = re.compile(r"^\s*\[\[?[^\]\n]*\]\]?", re.MULTILINE)


def _declared_dataclasses():
    """The section classes of the design file, and every other dataclass with declared fields."""
    classes = dict.fromkeys(ALL_SECTIONS.values())
    for package in DECLARING_PACKAGES:
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                    classes.setdefault(value)
    return [cls for cls in classes if specs(cls)]


@functools.cache
def shipped_texts() -> dict[str, str]:
    """Where → text of every source, notes and help string shipped with the package."""
    texts = {}
    for cls in _declared_dataclasses():
        for key, spec in specs(cls).items():
            texts[f"{cls.__module__}.{cls.__name__}.{key} source"] = spec.source
            texts[f"{cls.__module__}.{cls.__name__}.{key} help"] = spec.help
    for pattern in DATA_FILES:
        for path in sorted(ROOT.glob(pattern)):
            texts[str(path.relative_to(ROOT))] = TOML_HEADER.sub("", path.read_text(encoding="utf-8"))
    for package in DECLARING_PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            doc = ast.get_docstring(tree(path))
            if doc:
                texts[f"{path.relative_to(ROOT)} (module docstring)"] = doc
    return texts


@functools.cache
def code_literals() -> dict[str, str]:
    """Where → the string literals of each Python file of the packages, joined."""
    texts = {}
    for package in LITERAL_PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            strings = [n.value for n in nodes(path) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            texts[f"{path.relative_to(ROOT)} (string literals)"] = "\n".join(strings)
    return texts


def found(pattern: re.Pattern, texts: dict[str, str]) -> dict[str, set[str]]:
    """Handle → the places it occurs in."""
    out = defaultdict(set)
    for where, text in texts.items():
        for match in pattern.finditer(text):
            out[match.group(1) if pattern.groups else match.group(0)].add(where)
    return out


def merged(*maps) -> dict[str, set[str]]:
    out = defaultdict(set)
    for m in maps:
        for k, v in m.items():
            out[k] |= v
    return out


@functools.cache
def documented() -> frozenset[str]:
    """The handles docs/references.md has an entry for: first word of a heading, first cell of a table row; a row
    under a heading "<note> entries …" (a note of ROW_NOTES) is also the handle "<note> <first cell>"."""
    out = set()
    note = None  # the note whose numbered entries the current table lists
    for line in REFERENCES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            words = [w.strip("`") for w in line.lstrip("#").split()]
            if words:
                out.add(words[0])
            note = words[0] if len(words) > 1 and words[0] in ROW_NOTES and words[1] == "entries" else None
        elif line.startswith("|"):
            cell = line.split("|")[1].strip().strip("`")
            if cell and set(cell) - set("-: "):
                out.add(cell)
                if note:
                    out.add(f"{note} {cell}")
    return frozenset(out)


def missing(handles: dict[str, set[str]], entry=lambda h: h, verb="used in") -> list[str]:
    """The handles (as their entry would be written) without an entry, each with up to three places."""
    return [f"{entry(h)} ({verb} {', '.join(sorted(w)[:3])})" for h, w in sorted(handles.items())
            if entry(h) not in documented()]


def note_name(path: str) -> str:
    """A cited note path as its name: 'shared/reference/sipml.md' → 'sipml.md', 'shared/README.md' → 'README.md'."""
    return re.sub(r"^(?:\.\./)*(?:shared/)?(?:reference/)?", "", path)


def test_the_scan_sees_the_shipped_strings():
    # the scan must not silently go blind: these occur today, in the declarations, data files and docstrings
    texts = shipped_texts()
    assert sum(where.endswith(" source") for where in texts) > 150
    assert {"E12", "E18a", "E29c", "E38"} <= found(EQUATION, texts).keys()
    assert "sim" in found(BRACKET_KEY, texts)
    assert {"workloads.md", "costs-power.md"} <= found(NOTE, texts).keys()
    assert {"N21", "K22"} <= found(YEAR_KEY, texts).keys() and "BK" in found(PLAIN_KEY, texts)


def test_every_equation_tag_has_an_entry():
    tags = merged(found(EQUATION, shipped_texts()), found(EQUATION, code_literals()))
    assert not missing(tags), "equation tags without a row in docs/references.md: " + "; ".join(missing(tags))


def test_every_reference_case_has_an_entry():
    cases = merged(found(CASE, shipped_texts()), found(CASE, code_literals()))
    assert not missing(cases), "reference cases without a row in docs/references.md: " + "; ".join(missing(cases))


def test_every_cited_note_is_a_known_note_with_an_entry():
    notes = merged(found(NOTE, shipped_texts()), found(NOTE, code_literals()))
    unknown = [f"{n} (used in {', '.join(sorted(w)[:3])})" for n, w in sorted(notes.items())
               if n not in EXTERNAL_MD and note_name(n) not in NOTE_NAMES]
    assert not unknown, "cited .md files that are neither a reference note nor a known external file: " + \
        "; ".join(unknown)
    cited = {n: w for n, w in notes.items() if n not in EXTERNAL_MD}
    absent = missing(cited, note_name)
    assert not absent, "reference notes without a section in docs/references.md: " + "; ".join(absent)


def test_every_bracketed_source_key_has_an_entry():
    not_keys = set(CONFIDENCE_TAGS) | NOT_KEYS | set(ALL_SECTIONS)  # [link], [fabric] … name design sections
    keys = {k: w for k, w in found(BRACKET_KEY, shipped_texts()).items() if k not in not_keys}
    absent = missing(keys, lambda k: f"[{k}]")
    assert not absent, "bracketed source keys without a row in docs/references.md: " + "; ".join(absent)
    assert {f"[{tag}]" for tag in CONFIDENCE_TAGS} <= documented(), "the confidence tags are explained"


def test_every_workloads_source_key_has_an_entry():
    texts = {**shipped_texts(), **code_literals()}
    year_keys = {k: w for k, w in found(YEAR_KEY, texts).items()
                 if k not in NOT_YEAR_KEYS and not EQUATION.fullmatch(k)}
    keys = merged(year_keys, found(PLAIN_KEY, texts))
    assert not missing(keys), "source keys without a row in docs/references.md: " + "; ".join(missing(keys))


def test_every_numbered_entry_cited_with_its_note_has_an_entry_of_that_note():
    # "fabrics-2026.md K11, K12", "fabrics-2026.md K3–K15" (both ends), "fabrics-2026.md K13a"
    cited = defaultdict(set)
    for where, text in {**shipped_texts(), **code_literals()}.items():
        for match in NOTE_ROW.finditer(text):
            for row in re.split(r", |–", match.group(2)):
                cited[f"{match.group(1)} {row}"].add(where)
    absent = missing(cited)
    assert not absent, "numbered entries of a note without a row in its table in docs/references.md: " + \
        "; ".join(absent)


def _defined_in_notes() -> dict[str, set[str]]:
    """What the reference notes define: equation tags, cases, bracketed keys, workloads-2 keys → the note."""
    defined = defaultdict(set)
    for path in sorted(SHARED_NOTES.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            row = re.match(r"\|\s*((?:E|R)\d{1,2}[a-z]?)\s*\|", line)
            if row:
                defined[row.group(1)].add(path.name)
            if path.name in ROW_NOTES:  # "| K21a |" table rows and "K40." / "Y12." paragraphs heading a table
                entry = re.match(rf"(?:\|\s*({_ROW})\s*\||({_ROW})\. )", line)
                if entry:
                    defined[f"{path.name} {entry.group(1) or entry.group(2)}"].add(path.name)
            key = re.match(r"- (?:\*\*)?(\[[A-Za-z][A-Za-z0-9-]*\])", line)
            if key:
                defined[key.group(1)].add(path.name)
            if path.name == "workloads-2.md" and line.startswith("- "):
                for plain in re.findall(r"(?:^- |(?<=[.;] ))([A-Z][\w-]*(?: [A-Z]+ \d{4})?) — ", line):
                    defined[plain].add(path.name)
    return defined


@pytest.mark.skipif(not SHARED_NOTES.is_dir(), reason="the reference notes are not beside the project")
def test_every_handle_the_notes_define_has_an_entry():
    defined = _defined_in_notes()
    assert len(defined) > 100, "the notes' tables and source lists were not recognised"
    absent = missing(defined, verb="defined in")
    assert not absent, "defined in the reference notes, missing from docs/references.md: " + "; ".join(absent)
