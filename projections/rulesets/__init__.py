"""The built-in rulesets; each registers under the `skirmish.rulesets` entry-point group."""
