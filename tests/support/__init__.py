"""What the tests share: running skirmish (cli), driving an encounter (encounter), the
shared invariants' driver (invariants) and each ruleset's command generators (rulesets and
one module per ruleset, named for it), the console on a terminal (terminal), forging a log
(tamper, chain), hypothesis's profiles (examples)."""
