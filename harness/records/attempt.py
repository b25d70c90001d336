"""What a domain keeps of one attempt in its records (`TrialRecord.attempt_details`), chosen by its `kind`.

Each domain that keeps evidence has one model for it, whose `kind` is the domain's name: the harness's own are in
this package (`humaneval.CodeAttempt`, `hotpotqa.QuestionAttempt`, marked `@attempt_details`), and a domain from an
installed package brings its model in its DomainSpec (`details`), found through its `reflexion_harness.domains`
entry point. So a record of any domain is read without loading the domain, and no list names them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, PlainValidator

from harness.records.by_kind import is_kind_model, kind_of, validator
from harness.records.registry import Registry

_M = TypeVar("_M", bound=type[BaseModel])


def _import_record_models() -> None:
    # Every module of this package: those holding a domain's evidence mark it @attempt_details as they load.
    package = importlib.import_module(__package__ or "harness.records")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


ATTEMPT_DETAILS: Registry[type[BaseModel]] = Registry(
    "domain's attempt details",
    group="reflexion_harness.domains",
    discover=_import_record_models,
    check=is_kind_model,
    from_entry_point=lambda spec: getattr(spec, "details", None),
)


def attempt_details(model: _M) -> _M:
    """Class decorator: make `model` the evidence of the domain its `kind` names."""
    ATTEMPT_DETAILS.register(str(kind_of(model)), model)
    return model


AttemptDetails = Annotated[Any, PlainValidator(validator(ATTEMPT_DETAILS, "domain", "attempt details"))]
"""A domain's evidence of one attempt: validated as the model its `kind` names, written out as that model."""
