"""``python -m bytepair``: the command line (see ``bytepair.cli``)."""

from .cli import main

raise SystemExit(main())
