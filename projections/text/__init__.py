"""What a terminal prints: the board (board.py: the state table, what changed) and the narration
(narration.py: log lines, the replay, an explanation)."""
