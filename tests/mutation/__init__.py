"""Mutation testing of skirmish (README: Mutation testing): the scopes, and their runner, `python -m tests.mutation`."""
