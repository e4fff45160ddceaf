"""memcli's judgement, one decision a module (SPEC §3–§7; issue 17).

- importance: what an entry is worth keeping as — core, log, transient, routine or noise;
- routine: recurring activity and status lines, by cue and learnt from the workspace;
- duplicates: whether two entries state the same fact;
- supersede: whether a newer entry replaces an older fact;
- promotion: whether an entry goes to MEMORY.md, and under which heading.

Each is pure (no I/O, no clock) and returns a verdict with its reasons; the planner
(core.lifecycle) only composes the verdicts into actions.
"""
