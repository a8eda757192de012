"""skirmish.projections: rulesets (deciders), folds of events into state, views and narration."""
