"""The I/O layer: the sandbox of allowed folders, whole-file reads and atomic writes."""
