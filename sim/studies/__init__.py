"""Studies: searches and analyses built on many runs (tuning strategies by self-play)."""
