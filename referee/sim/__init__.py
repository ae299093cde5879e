"""The virtual table: bots with human reaction times play whole games through the real session on a
virtual clock (`referee simulate`, the demo's bots, the rules' property tests, the bench)."""
