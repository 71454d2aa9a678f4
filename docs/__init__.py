"""The docs' own tools (hooks.py, pictures/): a package so that they import as ``docs.*``."""
