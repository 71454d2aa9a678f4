"""Run a server script against this checkout's elicitkit: ``python _this_checkout.py SCRIPT ...``.

Clients spawn the servers they test with an environment of their own (the Inspector does
not pass ``PYTHONPATH`` on), so the script would import whatever elicitkit the venv has
installed (an editable install of another worktree). This puts the checkout first.
"""

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
