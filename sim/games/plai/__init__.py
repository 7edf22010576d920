"""PLAI, the tech worker's card game (issue 9). See /work/shared/rules/plai.md."""
