from support.cli import Cli


def test_hauser_example_through_the_cli(cli: Cli) -> None:
    """ap-countdown.md, Resolution: Hauser 14 + Qu 1 = 15; 4 AP -> 35; 3 AP melee at 35 resolves at 20."""
    cli.ok("new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "3")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("round", "--roll", "Hauser=6,8")
    assert "Hauser 35" in cli.out
    out = cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    assert "at 35: resolves at 20" in out
