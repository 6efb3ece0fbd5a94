"""One error hierarchy for the whole project.

The CLI maps each class to an exit code: bad input → 2, an infeasible design or a domain failure → 1.
"""


class SipmlError(Exception):
    """Base class of every error the project raises on purpose."""

    exit_code = 1


class InputError(SipmlError, ValueError):
    """The user gave a value, unit, key or file the calculator cannot accept."""

    exit_code = 2


class InfeasibleDesign(SipmlError):
    """The design point is well formed but physically cannot work (a limit is violated)."""

    exit_code = 1


class DomainError(SipmlError):
    """A computation has no answer in its domain (e.g. no root in the bracket of a solver)."""

    exit_code = 1


def did_you_mean(word, options) -> str:
    """' (did you mean 'x'?)' for the option closest to a mistyped `word`, or '' when none is close."""
    close = closest(word, options)
    return f" (did you mean '{close}'?)" if close else ""


def closest(word, options) -> str | None:
    """The option a mistyped `word` most likely means, or None. Compared without case and punctuation first
    ('gpt-3' is 'gpt3'): the same name written differently; then an option the word begins (three characters at
    least: 'gpt-3' → 'gpt3-175b', not the more similar-looking 'gpt2-355m'), the likeliest by difflib; then
    difflib's closest on those forms and as written."""
    import difflib
    import re

    def bare(text) -> str:
        return re.sub(r"[\W_]+", "", str(text).lower())

    written = [str(o) for o in options]
    forms: dict[str, str] = {}
    for option in written:
        forms.setdefault(bare(option), option)
    key = bare(word)
    if key and key in forms:
        return forms[key]
    begun = [form for form in forms if len(key) >= 3 and form.startswith(key)]
    if begun:
        return forms[difflib.get_close_matches(key, begun, n=1, cutoff=0.0)[0]]
    close = difflib.get_close_matches(key, list(forms), n=1) if key else []
    if close:
        return forms[close[0]]
    close = difflib.get_close_matches(str(word), written, n=1)
    return close[0] if close else None


def shown(value, limit: int = 60) -> str:
    """A user's value as an error message shows it: its repr on one line, cut to `limit` characters, and a
    whole number too long to print said as its digit count (Python refuses to print ints over 4300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        digits = int((value.bit_length() - 1) * 0.30102999566398) + 1  # log10 of the highest bit, one short at most
        return f"a {digits + (abs(value) >= 10 ** digits)}-digit number"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
