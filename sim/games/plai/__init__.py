"""PLAI, the tech worker's card game (issue 9). See ../shared/rules/plai.md."""
