"""Checks of arena projects: every project rule and every pack rule on the compiled pack,
placed back in the project's files; their quick fixes; the workspace of projects."""
