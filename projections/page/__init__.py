"""The replay page: its data (data.py: every branch's events with the view at each moment, for
the GM or the players) and its one self-contained HTML file (shell.py, page.js, page.css)."""
