"""pydantic validation of configuration input into plain frozen dataclasses.

The configuration values (``Config``, the cards settings) are frozen dataclasses, so
that a check with nothing to configure runs without importing pydantic: a fresh
``pack-lsp --check`` process spends about 100 ms importing it. Input that needs
validating (a configuration file, editor settings, command-line overrides, a
``Config(...)`` given strings) goes through the pydantic model this module derives
from the dataclass: the same fields, types, defaults and error messages as a
hand-written ``BaseModel`` (``extra="forbid"``), the fields declared once.

Hooks a dataclass may declare as class attributes (plain functions, so that
declaring them needs no pydantic):

- ``_pre``: model validators run on the raw input, in order (key spellings,
  aliases); each takes the input and returns it.
- ``_pre_fields``: ``{field: function}``, a validator run on that field's raw value
  before its type is checked.
- ``_post``: model validators run on the validated model (read through the field
  names, as the dataclass would be); each raises ``ValueError`` to refuse it.

The validated model is converted into the dataclass, nested dataclasses included,
without running the dataclass's ``__init__``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

T = TypeVar("T")

_MODELS: dict[type, type[BaseModel]] = {}
_DATACLASS_OF: dict[type[BaseModel], type] = {}


def validate(cls: type[T], data: Any) -> T:
    """``data`` validated as ``cls`` (raises pydantic's ``ValidationError``)."""
    model = model_for(cls).model_validate(data)
    result: T = _convert(model)
    return result


def model_for(cls: type) -> type[BaseModel]:
    """The pydantic model that validates input for the dataclass ``cls`` (cached)."""
    known = _MODELS.get(cls)
    if known is not None:
        return known
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            info = Field(default=f.default)
        elif f.default_factory is not dataclasses.MISSING:
            info = Field(default_factory=f.default_factory)
        else:
            info = Field()
        fields[f.name] = (_model_type(hints[f.name]), info)
    validators: dict[str, Any] = {}
    # pydantic runs "before" validators last defined first: define them backwards.
    for i, hook in reversed(list(enumerate(getattr(cls, "_pre", ())))):
        validators[f"pre_{i}"] = model_validator(mode="before")(_before(hook))
    for name, hook in getattr(cls, "_pre_fields", {}).items():
        validators[f"pre_{name}"] = field_validator(name, mode="before")(_before(hook))
    for i, hook in enumerate(getattr(cls, "_post", ())):
        validators[f"post_{i}"] = model_validator(mode="after")(_after(hook))
    model: type[BaseModel] = create_model(
        cls.__name__,
        __config__=ConfigDict(extra="forbid", frozen=True),
        __validators__=validators,
        __module__=cls.__module__,
        **fields,
    )
    _MODELS[cls] = model
    _DATACLASS_OF[model] = cls
    return model


def _before(hook: Callable[[Any], Any]) -> Any:
    def run(cls: type, value: Any) -> Any:
        return hook(value)

    return classmethod(run)


def _after(hook: Callable[[Any], None]) -> Callable[[BaseModel], BaseModel]:
    def run(self: BaseModel) -> BaseModel:
        hook(self)
        return self

    return run


def _model_type(tp: Any) -> Any:
    """``tp`` with every dataclass in it replaced by its pydantic model."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return model_for(tp)
    origin = typing.get_origin(tp)
    if origin is None or origin is typing.Literal:
        return tp
    args = typing.get_args(tp)
    new = tuple(_model_type(a) for a in args)
    if new == args:
        return tp
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 - built at run time from a tuple
    return origin[new]


def _convert(value: Any) -> Any:
    """Validated models, and the tuples and dicts holding them, as dataclasses."""
    if isinstance(value, BaseModel):
        cls = _DATACLASS_OF[type(value)]
        obj: Any = object.__new__(cls)
        for f in dataclasses.fields(cls):
            object.__setattr__(obj, f.name, _convert(getattr(value, f.name)))
        return obj
    if type(value) is tuple:
        return tuple(_convert(v) for v in value)
    if type(value) is dict:
        return {k: _convert(v) for k, v in value.items()}
    return value
