"""Settling disputes, read only: explain an event's numbers, why a figure is what it is, diff two moments."""
