"""Runnable examples: an agent of its own with caller memory attached (`front_desk.py`)."""
