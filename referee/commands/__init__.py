"""The `referee` subcommands that need no hardware: replay, simulate, and the journal read back."""
