"""Incident datasets: the on-disk format, the build into embedded backends, the home layout."""
