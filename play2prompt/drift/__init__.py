"""Tools change after their docs were optimized; a run's demos notice.

- :mod:`~play2prompt.drift.recorded`: what a finished run recorded that can be checked again
  (the calls that worked and their outputs, the facts of tool play);
- :mod:`~play2prompt.drift.verify`: ``p2p verify``, the recorded calls executed again and
  compared by evaluation's checker, the schemas compared, a status per tool;
- :mod:`~play2prompt.drift.refresh`: ``p2p refresh``, a new run that re-optimizes only what
  drifted, from the facts still true;
- :mod:`~play2prompt.drift.simulate` and :mod:`~play2prompt.drift.wrappers`: drifted versions
  of a tools file (renamed parameter, changed unit, changed accepted values, removed tool,
  changed output), real executors wrapping the originals, and the query set rewritten to match.
"""
