"""Jupyter notebooks: read from their JSON text with the span of every part
(:mod:`~editguard.core.notebook.model`), written into it the way their writer would
(:mod:`~editguard.core.notebook.write`), and checked against the official schema
(:mod:`~editguard.core.notebook.schema`)."""
