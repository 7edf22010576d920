"""Strategy plug-ins, one sub-package per game."""
