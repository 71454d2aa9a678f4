"""Serve the ``server`` a script creates over stdio: ``python docs/pictures/_serve.py SCRIPT``.

The gallery's forms (examples/gallery/) are scripts a reader runs to watch a scripted user
answer them; started as the main program they do that, not serve. For a picture, the
client starts this instead: it loads SCRIPT as a module (its ``if __name__ == "__main__"``
part does not run) and runs the ``MCPServer`` it names ``server`` over stdio.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    """Load the script ARGV names and run its ``server`` over stdio."""
    (script,) = argv
    spec = importlib.util.spec_from_file_location(Path(script).stem, script)
    if spec is None or spec.loader is None:
        raise SystemExit(f"Cannot load {script}: it is not a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    server = getattr(module, "server", None)
    if server is None:
        raise SystemExit(f"{script} creates no `server` to serve: name its MCPServer `server`.")
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
