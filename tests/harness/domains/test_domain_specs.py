"""Each shipped domain is one DomainSpec in its own package, and the config, the records and the report read it."""

from __future__ import annotations

import ast
import subprocess
import sys
from typing import Literal, get_args

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from harness.domains.registry import DOMAINS, domain_spec, domain_specs, mention_rules
from harness.domains.spec import DomainSpec
from harness.records.attempt import ATTEMPT_DETAILS
from harness.run.config import ENV_NAMES, PROTOCOL_MEMORY_WINDOW, RunConfig
from tests.runner import ROOT

SHIPPED = ("alfworld", "humaneval", "hotpotqa")


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_spec_lives_in_its_package_and_every_rule_it_names_loads(name: str) -> None:
    spec = domain_spec(name)
    assert type(spec).__module__ == "harness.domains.spec" and spec.name == name
    assert spec.builder.reference == f"harness.domains.{name}.domain:build"
    rules = (spec.target, spec.mentions, spec.spans, spec.identity, spec.line_identity)
    assert all(rule is not None and callable(rule.load()) for rule in rules)
    notes = (spec.mention_note, spec.identity_note)
    assert all(note is not None and note.load().endswith(".") for note in notes)
    assert mention_rules(name) == (spec.target.load(), spec.mentions.load())  # type: ignore[union-attr]


def test_the_config_union_windows_and_record_models_are_read_from_the_specs() -> None:
    specs = {spec.name: spec for spec in domain_specs()}
    assert ENV_NAMES == SHIPPED
    assert PROTOCOL_MEMORY_WINDOW == {"alfworld": 3, "humaneval": 1, "hotpotqa": 1_000_000}
    members = get_args(RunConfig.model_fields["env"].annotation)
    assert members == tuple(specs[name].env_config for name in SHIPPED)
    for name in ("humaneval", "hotpotqa"):
        assert ATTEMPT_DETAILS.get(name) is specs[name].details
    assert specs["alfworld"].details is None and "alfworld" not in ATTEMPT_DETAILS


def test_naming_a_domain_loads_none_of_its_rules() -> None:
    code = (
        "import sys; import harness.run.config; from harness.domains.registry import mention_note; "
        "mention_note('alfworld'); print(sorted(m for m in sys.modules if m.startswith('harness.domains.alfworld')))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = ast.literal_eval(result.stdout)
    assert "harness.domains.alfworld.target" in loaded  # the note asked for: its module, nothing more
    assert not {"harness.domains.alfworld.domain", "harness.domains.alfworld.identity"} & set(loaded)


class OtherEnv(BaseModel):
    name: Literal["other"] = "other"


def test_a_spec_refuses_an_env_config_or_record_model_of_another_name() -> None:
    with pytest.raises(ValueError, match=r"env config's `name` must be Literal\['elsewhere'\]"):
        DomainSpec(name="elsewhere", builder=domain_spec("alfworld").builder, env_config=OtherEnv)
    with pytest.raises(ValueError, match="details model's `kind` must default to 'elsewhere'"):
        DomainSpec(name="elsewhere", builder=domain_spec("alfworld").builder, details=ATTEMPT_DETAILS.get("hotpotqa"))


def test_a_record_names_an_unknown_kind_in_one_sentence_with_the_accepted_ones() -> None:
    from harness.records.attempt import AttemptDetails

    refusal = r"kind 'webshop' is no domain's attempt details; accepted: hotpotqa, humaneval"
    with pytest.raises(ValidationError, match=refusal):
        TypeAdapter(AttemptDetails).validate_python({"kind": "webshop"})
    assert "webshop" not in DOMAINS
