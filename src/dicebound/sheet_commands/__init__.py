"""Sheet commands: the ``[sheet: ...]`` tags a Game Master writes to change a character's
live sheet (damage, healing, a spell slot, a condition, a rest), each applied or refused
by the Engine and written back with its outcome. docs/design/sheet-commands.md states
the rules."""
