"""Continuations, forks, state edits and approval: a run across several streams (docs/design.md §14).

One home for what happens to a harness run between and around its streams, over the run
store's lineage table (:mod:`diagnosis_harness.runstore.lineage`, its only owner):

- :mod:`~diagnosis_harness.continuations.starts`: what a stream starts from (a new turn, a
  continuation, a re-run of a checkpoint), read from the thread's checkpoints;
- :mod:`~diagnosis_harness.continuations.resolve`: the rules — begin, continue, fork or refuse —
  and what a fork inherits;
- :mod:`~diagnosis_harness.continuations.lineage`: the segments a run session records, the
  edits of a thread's state, superseding and cancelling a paused run;
- :mod:`~diagnosis_harness.continuations.edits`: which ``update_state`` edits are accepted;
- :mod:`~diagnosis_harness.continuations.approval`: the human approval gate of ``release``.

A layer between the nodes (``release`` awaits approval here) and the run's types; the run
session, the server and ``harness runs`` use it, and build each stream's run context from its
plan (:mod:`diagnosis_harness.session.starts`).
"""
