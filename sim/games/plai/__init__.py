"""PLAI, the tech worker's card game. Rules: docs/rules/plai.md."""
