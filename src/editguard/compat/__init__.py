"""Other servers' tool sets, served with editguard underneath (``editguard serve --compat``)."""
