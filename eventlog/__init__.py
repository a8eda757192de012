"""skirmish.eventlog: the immutable encounter log (events, commands, the SQLite store, errors)."""
