"""Peer-to-Peer: the team deck-builder on the 54-card Tech Deck."""
