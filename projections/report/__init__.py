"""The session report of one branch: its read model (data.py) and its Markdown (markdown.py)."""
