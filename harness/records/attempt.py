"""What a domain keeps of one attempt in its records (`TrialRecord.attempt_details`), chosen by its `kind`.

Each domain that keeps evidence has one model for it, whose `kind` is the domain's name: the harness's own are in
this package (`humaneval.CodeAttempt`, `hotpotqa.QuestionAttempt`, marked `@attempt_details`), and a domain from an
installed package brings its model in its DomainSpec (`details`), found through its `reflexion_harness.domains`
entry point. So a record of any domain is read without loading the domain, and no list names them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, PlainValidator, ValidationError

from harness.records.registry import Registry

_M = TypeVar("_M", bound=type[BaseModel])


def _kind(model: type[BaseModel]) -> Any:
    field = model.model_fields.get("kind")
    return None if field is None else field.default


def _import_record_models() -> None:
    # Every module of this package: those holding a domain's evidence mark it @attempt_details as they load.
    package = importlib.import_module(__package__ or "harness.records")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def _is_details(name: str, model: Any) -> str | None:
    if isinstance(model, type) and issubclass(model, BaseModel) and _kind(model) == name:
        return None
    return f"is not a pydantic model whose `kind` defaults to {name!r}"


ATTEMPT_DETAILS: Registry[type[BaseModel]] = Registry(
    "domain's attempt details",
    group="reflexion_harness.domains",
    discover=_import_record_models,
    check=_is_details,
    from_entry_point=lambda spec: getattr(spec, "details", None),
)


def attempt_details(model: _M) -> _M:
    """Class decorator: make `model` the evidence of the domain its `kind` names."""
    ATTEMPT_DETAILS.register(str(_kind(model)), model)
    return model


def _accepted() -> str:
    return ", ".join(ATTEMPT_DETAILS.names())


def _validate(value: Any) -> BaseModel:
    if isinstance(value, BaseModel):
        kind = getattr(value, "kind", None)
        if isinstance(kind, str) and kind in ATTEMPT_DETAILS and isinstance(value, ATTEMPT_DETAILS.get(kind)):
            return value
        raise ValueError(f"a {type(value).__name__} is no domain's attempt details; accepted kinds: {_accepted()}")
    if not isinstance(value, Mapping):
        raise ValueError(f"attempt details are a mapping with a `kind`, not {type(value).__name__}")
    kind = value.get("kind")
    if kind is None:
        return _without_kind(value)
    if not isinstance(kind, str) or kind not in ATTEMPT_DETAILS:
        raise ValueError(f"kind {kind!r} is no domain's attempt details; accepted: {_accepted()}")
    return ATTEMPT_DETAILS.get(kind).model_validate(value)


def _without_kind(value: Mapping[str, Any]) -> BaseModel:
    # Each model defaults its `kind`, so details written without one are whichever model takes them, as a union read.
    errors: list[ValidationError] = []
    for name in ATTEMPT_DETAILS.ordered():
        try:
            return ATTEMPT_DETAILS.get(name).model_validate(value)
        except ValidationError as error:
            errors.append(error)
    if errors:
        raise errors[0]
    raise ValueError("no domain keeps attempt details")


AttemptDetails = Annotated[Any, PlainValidator(_validate)]
"""A domain's evidence of one attempt: validated as the model its `kind` names, written out as that model."""
