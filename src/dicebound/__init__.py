"""dicebound: resolve tabletop role-playing checks from a game's ruleset."""
