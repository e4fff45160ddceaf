"""All disk I/O: layout, files, locks, transactions, session stores, index."""
