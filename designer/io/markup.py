"""Text that user strings pass through on the way into XML, YAML, DOT and config files.

A design name or a node-name pattern comes from the user. These helpers make sure it can
neither break the file's syntax (a quote, a newline in a comment) nor carry characters the
format forbids (XML 1.0 has no place for most control characters).
"""

from __future__ import annotations

import re

# Characters XML 1.0 does not allow at all (everything below 0x20 but tab, LF and CR, the
# surrogates and the two non-characters), plus DEL and the C1 controls, which are legal but
# invisible and trip up editors.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Text that every escape below leaves as it is: device and port names are nearly all of it.
_PLAIN = re.compile(r"[A-Za-z0-9 ._/:,=+@#()\[\]-]*")


def clean_text(value: object) -> str:
    """The text with every character XML 1.0 forbids removed (tab, LF and CR stay)."""
    return _XML_BAD.sub("", "" if value is None else str(value))


def one_line(value: object, limit: int = 200) -> str:
    """Text fit for a comment or a single-line field: controls and line breaks become spaces."""
    text = _CONTROL.sub(" ", clean_text(value)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def xml_text(value: object) -> str:
    """Escaped element content."""
    if type(value) is str and _PLAIN.fullmatch(value):
        return value
    return clean_text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(value: object) -> str:
    """Escaped attribute value for a double-quoted attribute; line breaks survive as references."""
    if type(value) is str and _PLAIN.fullmatch(value):
        return value
    return (xml_text(value).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
            .replace("\t", "&#9;"))


def yaml_str(value: object) -> str:
    """A YAML double-quoted scalar that any YAML 1.1 or 1.2 parser reads back exactly."""
    out = ['"']
    for ch in clean_text(value):
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")  # also keeps NEL and the Unicode line breaks literal
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def dot_str(value: object) -> str:
    """A DOT double-quoted string.

    DOT escapes only the double quote, and a backslash before the closing quote would swallow
    it, so backslashes become slashes and line breaks become spaces.
    """
    text = one_line(value, 10_000).replace("\\", "/").replace('"', '\\"')
    return f'"{text}"'


def slug(text: str) -> str:
    """A NetBox slug: lower-case letters, digits, '-' and '_'."""
    value = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-")
    return value[:100] or "fabric"
