"""Versions of a set: git access, history, releases and their tags, pins, diffs and the
merge driver that merges set files by item id."""
