"""Incident datasets: the on-disk format, the build into embedded backends, the home layout, imports.

``format`` (logs, manifest), ``tables`` and ``runbooks`` read a dataset folder; ``build`` indexes it
into the SQLite backends; ``layout`` says where builds live under HARNESS_HOME; ``importer`` (with
``sniff``, ``log_import``, ``json_logs``, ``text_logs``, ``records``) converts users' exports into
a dataset folder; ``swap`` puts the folder a build or an import made in place of the old one;
``examples`` keeps hints and advertised attributes to the loaded data.
"""
