"""turnproc: a play-by-e-mail turn processor for Star Chase."""

__version__ = "0.1.0"
