"""Mutation testing of skirmish (docs/contributing.md: Mutation testing): the scopes, and their runner, `python -m tests.mutation`."""
