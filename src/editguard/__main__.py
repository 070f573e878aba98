"""``python -m editguard``: the same as the ``editguard`` command."""

from editguard.cli import main

raise SystemExit(main())
