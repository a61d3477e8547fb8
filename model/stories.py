"""Playing a hand-written story: the protocol steps it names, in order, with the host's answers.

A story names client, network, host and harness steps. A request other than tools/call waits for the
host's `respond` (`model.host`); a story need not name it: the answer follows at once, unless the
story's next step is a connection event, which then hits the window between receipt and answer.
"""
from __future__ import annotations

from .host import answer_pending


def play(world, story, strict: bool = True, windows: bool = True):
    """Take the story's steps in turn; yield (action, args, step, named) for each step taken, the
    host's answers among them (`named` False: a step the story did not name). An argument may be a function of the world (or a dict of such), resolved
    when its step comes. A step that is not enabled raises ModelError when `strict`, else ends the
    story there (as does one naming a run or request this world never made). With `windows` False every answer follows at once, whatever comes next (a trace
    of a model whose answers are atomic, played in this one)."""
    for k, (action, args) in enumerate(story):
        try:
            if callable(args):
                args = args(world)
            elif any(callable(v) for v in args.values()):
                args = {key: v(world) if callable(v) else v for key, v in args.items()}
        except (IndexError, KeyError):
            if strict:
                raise
            return                  # the story names a run or request this world never made
        if not strict and args not in world.moves(action):
            return
        step = world.apply(action, args, check=strict)
        yield action, args, step, True
        following = story[k + 1][0] if windows and k + 1 < len(story) else None
        for answered in answer_pending(world, step, following, strict):
            yield "respond", answered.args, answered, False
