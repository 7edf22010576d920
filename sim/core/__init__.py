"""The core layer: errors, file readers, options and strategy plumbing shared by every game."""
