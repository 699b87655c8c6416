"""The allowlist: the model `check` judges, and the ratchet's commands (edit, ratchet, history, phases)."""
