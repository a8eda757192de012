"""skirmish.cli: the `skirmish` command line."""
