"""Writes beyond one command at the table: amend (re-decides a branch's later commands on a new
branch) and the jsonl round trip (import writes a whole tree, checked, beside its export)."""
