"""A plugin of reflexion-harness that misbehaves: each module is one way a plugin can fail the harness."""
