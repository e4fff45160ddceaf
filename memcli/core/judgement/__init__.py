"""memcli's judgement, one decision a module (SPEC §3–§7; issue 17).

- importance: what an entry is worth keeping as — core, log, transient, routine or noise
  (with shapes: what is never core; transient: what is true for a while only; facts: what
  makes a line a lasting fact);
- routine: recurring activity and status lines, by cue and learnt from the workspace;
- duplicates: whether two entries state the same fact (with wording: what an entry says;
  features: how a text is cut into weighed features; concepts and phrasing: the
  bilingual word lists they read);
- supersede: whether a newer entry replaces an older fact (with changes: what an entry
  says changed; profiles: what is read of each entry; stated: what an older entry states;
  same_subject: whether a change is about what it is about; cues and kinds: the words of a
  change and the kinds of things named);
- replacements: which older facts each newer entry of a workspace replaces (with
  candidates: the few older entries worth judging, found by key);
- promotion: whether an entry goes to MEMORY.md, and under which heading.

Each is pure (no I/O, no clock) and returns a verdict with its reasons; the planner
(core.lifecycle) only composes the verdicts into actions.
"""
