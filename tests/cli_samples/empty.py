"""A module without forms."""

VALUE = 1
