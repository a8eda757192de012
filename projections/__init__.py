"""skirmish.projections: the rules, the write side that applies them, and the read models.

Three rooms, as an event-sourced application splits them (eventlog/ is the persistence):

- the rules (the domain): ``ruleset.py`` (the contract and the registry), ``rulesets/`` (one
  package per ruleset: its events, state, decisions, fold and view), ``refusals.py`` (the
  errors they raise), ``dice.py``, ``damage.py``, ``names.py``, ``view.py`` (the typed view);
- the write side (the application): ``write/``, where commands are decided and appended
  (``engine.py``), the decisions every ruleset shares (``shared.py``, ``carry.py``), what
  GMs bring in (``imports/``), amend and the jsonl round trip;
- the read models: ``text/`` (every line a terminal prints, the events' words included),
  ``audit/``, ``page/``, ``report/``, ``policy.py`` (what the players may see), ``notes.py``,
  ``gm.py``, and ``door/``, the one door the surfaces come through with typed requests.
"""
