"""The one door every surface comes through: typed requests, the one parser of a command
line's words into them, who may send which (the role table), the bounds on what they carry,
and what running one did, as a typed result each surface words itself.

- :mod:`~skirmish.projections.door.requests`: the requests (the fight's stored commands and
  the time travel and reads around them), their JSON form, the role table, the bounds.
- :mod:`~skirmish.projections.door.words`: a command line's words to a request, for the
  command line, its fast path, the console and `amend`; and a linear splitter of a typed line.
- :mod:`~skirmish.projections.door.perform`: a request run on an encounter, to a typed
  result, and the sentences that say it.

Nothing here imports typer, a web framework or a terminal library: the command line, the
console and the GM's page import this, never the other way.
"""
