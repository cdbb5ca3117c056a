"""Dataclass <-> plain JSON-able data, with validation that names the field path.

Only plain types are handled (bool, int, float, str, None, tuples, dicts with str keys,
Literal, Optional and nested dataclasses): no pickle, no eval, nothing executable.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from designer.limits import InputError, quote

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_T = TypeVar("_T", bound="DataclassInstance")


class DesignValidationError(InputError):
    """Raised when data does not fit the design schema; `path` names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message, "", path or "<root>")
        self.path = path
        self.message = message


def to_data(obj: object) -> Any:
    """A dataclass tree as dicts, lists and scalars, fit for json.dumps."""
    cls = type(obj)
    specs = _SPECS[cls] if cls in _SPECS else _field_specs(cls)
    if specs is not None:
        # A field marked omit_empty is left out while empty, so adding one keeps older files equal.
        # omit_none leaves it out only while None (a 0 the user set is kept).
        out = {}
        for name, omit_empty, omit_none in specs:
            value = getattr(obj, name)
            if (omit_empty and not value) or (omit_none and value is None):
                continue
            out[name] = to_data(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [to_data(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    return obj


# Each class's fields as `to_data` reads them, kept per class: sizing keys every design it prices
# by its content, and asking `dataclasses.fields` each time was most of that.
_SPECS: dict[type, tuple[tuple[str, bool, bool], ...] | None] = {}


def _field_specs(cls: type) -> tuple[tuple[str, bool, bool], ...] | None:
    """A dataclass's fields (name, omit_empty, omit_none); None for any other type (a dataclass
    itself, as a class, is a value)."""
    specs = None
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        specs = tuple((f.name, bool(f.metadata.get("omit_empty")), bool(f.metadata.get("omit_none")))
                      for f in dataclasses.fields(cls))
    _SPECS[cls] = specs
    return specs


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _join(path: str, name: str) -> str:
    shown = name if name.isidentifier() and len(name) <= 40 else quote(name, 40)
    return f"{path}.{shown}" if path else shown


def from_data(cls: type[_T], data: object, path: str = "") -> _T:
    """Build `cls` from plain data; unknown keys and wrong types raise DesignValidationError."""
    if not isinstance(data, dict):
        raise DesignValidationError(path, f"expected an object, got {_kind(data)}")
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            raise DesignValidationError(_join(path, str(key)), "unknown field")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name in data:
            values[name] = _value(hints[name], data[name], _join(path, name))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise DesignValidationError(_join(path, name), "missing required field")
    try:
        return cls(**values)
    except DesignValidationError as exc:  # a range check in __post_init__ names only its field
        raise DesignValidationError(_join(path, exc.path), exc.message) from None
    except (ValueError, TypeError) as exc:
        raise DesignValidationError(path, str(exc)) from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _value(annotation: Any, value: object, path: str) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        options = typing.get_args(annotation)
        if value is None:
            if type(None) in options:
                return None
            raise DesignValidationError(path, "must not be null")
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _value(option, value, path)
            except DesignValidationError as exc:
                errors.append(exc.message)
        raise DesignValidationError(path, errors[0] if errors else "invalid value")
    if origin is typing.Literal:
        allowed = typing.get_args(annotation)
        if value not in allowed:
            raise DesignValidationError(path, f"must be one of {', '.join(map(repr, allowed))}, got {quote(value)}")
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            raise DesignValidationError(path, f"expected true/false, got {_kind(value)}")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                if abs(value) >= 2**53:  # beyond exact whole numbers, and beyond every range
                    raise DesignValidationError(path, f"{quote(value)} is out of range")
                return int(value)
            raise DesignValidationError(path, f"expected a whole number, got {_kind(value)} {quote(value)}")
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DesignValidationError(path, f"expected a number, got {_kind(value)}")
        if not math.isfinite(value):
            raise DesignValidationError(path, "must be a finite number")
        return float(value)
    if annotation is str:
        if not isinstance(value, str):
            raise DesignValidationError(path, f"expected text, got {_kind(value)}")
        return value
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, list):
            raise DesignValidationError(path, f"expected a list, got {_kind(value)}")
        item = args[0]
        return tuple(_value(item, v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        key_type, val_type = typing.get_args(annotation)
        if not isinstance(value, dict):
            raise DesignValidationError(path, f"expected an object, got {_kind(value)}")
        return {k: _value(val_type, v, _join(path, k)) for k, v in value.items()}
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return from_data(annotation, value, path)
    raise DesignValidationError(path, f"unsupported schema type {annotation!r}")
