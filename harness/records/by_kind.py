"""A record field whose value is one of several models, chosen by its `kind` from a registry rather than a closed
union, so a package from outside adds a kind without editing the schema (a domain's evidence, a source's details)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from harness.records.registry import Registry


def kind_of(model: type[BaseModel]) -> Any:
    """The default of a model's `kind`: the name it is registered under."""
    field = model.model_fields.get("kind")
    return None if field is None else field.default


def is_kind_model(name: str, model: Any) -> str | None:
    """A registry check: None when `model` is a pydantic model whose `kind` defaults to `name`."""
    if isinstance(model, type) and issubclass(model, BaseModel) and kind_of(model) == name:
        return None
    return f"is not a pydantic model whose `kind` defaults to {name!r}"


def validator(models: Registry[type[BaseModel]], owner: str, what: str) -> Callable[[Any], BaseModel]:
    """Validation of a value as the model of `models` its `kind` names; the errors say it is no `owner`'s `what`
    (e.g. no domain's attempt details)."""

    def accepted() -> str:
        return ", ".join(models.names())

    def validate(value: Any) -> BaseModel:
        if isinstance(value, BaseModel):
            kind = getattr(value, "kind", None)
            if isinstance(kind, str) and kind in models and isinstance(value, models.get(kind)):
                return value
            raise ValueError(f"a {type(value).__name__} is no {owner}'s {what}; accepted kinds: {accepted()}")
        if not isinstance(value, Mapping):
            raise ValueError(f"{what} are a mapping with a `kind`, not {type(value).__name__}")
        kind = value.get("kind")
        if kind is None:
            return without_kind(value)
        if not isinstance(kind, str) or kind not in models:
            raise ValueError(f"kind {kind!r} is no {owner}'s {what}; accepted: {accepted()}")
        return models.get(kind).model_validate(value)

    def without_kind(value: Mapping[str, Any]) -> BaseModel:
        # Each model defaults its `kind`, so a value written without one is whichever model takes it, as a union read.
        errors: list[ValidationError] = []
        for name in models.ordered():
            try:
                return models.get(name).model_validate(value)
            except ValidationError as error:
                errors.append(error)
        if errors:
            raise errors[0]
        raise ValueError(f"no {owner} keeps {what}")

    return validate
