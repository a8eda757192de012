"""The write side: where a command is decided against the state its events fold to and the
events are appended (``engine.py``, the ``Encounter``), the decisions every ruleset shares
(``shared.py``: notes, hide, reveal, bands; ``carry.py``: the party between fights), what GMs
bring in (``imports/``: stat blocks and saved fights read into commands), and the writes
beyond one command: amend (re-decides a branch's later commands on a new branch) and the
jsonl round trip (import writes a whole tree, checked, beside its export). Nothing here words
an event for a reader: that is the read models' (projections/text/words.py)."""
