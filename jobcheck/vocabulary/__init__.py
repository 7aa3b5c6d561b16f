"""Word lists and word matching shared by extraction and checks (no libcst: checks
and the project model may import them)."""
