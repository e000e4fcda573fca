"""A call changed one argument at a time: set, or left out; the original stays as it was."""

from play2prompt.tools.model import Invocation


def test_with_args_sets_and_without_leaves_out():
    call = Invocation("distance", {"origin": [0, 0], "units": "miles"})
    moved = call.with_args({"origin": [1, 2], "destination": [3, 4]})
    assert moved == Invocation("distance", {"origin": [1, 2], "units": "miles",
                                            "destination": [3, 4]})
    assert call.without("units") == Invocation("distance", {"origin": [0, 0]})
    assert call.arguments == {"origin": [0, 0], "units": "miles"}
