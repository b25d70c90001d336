"""Model swap: Reflexion's self-diagnosis, played and reflected by other models than the run's.

The study swapped gpt-3.5-turbo for gpt-4o-mini. The swap itself lives in the condition's config
(`actor_model`, `reflector_model`); this source only insists that one of them differs.
"""

from __future__ import annotations

from harness.reflection._base import register_source
from harness.reflection.self_diagnosis import SelfDiagnosis


@register_source("model_swap")
class ModelSwap(SelfDiagnosis):
    """Self-diagnosis under swapped models."""

    swaps_models = True
