"""The sweep space: parsing, the grid, and what each trial optimizes."""

import pytest

from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.sweep.space import SweepSpace, plan_trial


def test_parse_and_grid():
    space = SweepSpace.parse(["L=1,2", "search=beam,mc", "lambda=0,1"], "full,easy")
    assert space.values["expand"] == (1, 2) and space.values["lam"] == (0.0, 1.0)
    assert len(space.grid()) == 16
    assert space.varying() == ["variant", "search", "expand", "lam"]
    for bad in (["depth"], ["colour=red"], ["depth=x"], ["search=dfs"]):
        with pytest.raises(UserError):
            SweepSpace.parse(bad)
    with pytest.raises(UserError, match="unknown variant"):
        SweepSpace.parse([], "full,docs")


def test_inference_only_settings_share_the_optimization_key():
    base = preset("quick")
    space = SweepSpace.parse(["demos=1,4"], "full,desc-only,demo-only,easy")
    plans = [plan_trial(p, base, space.max_demos(base.demos_per_tool)) for p in space.grid()]
    keys = {(p.variant.name, p.demos): p.opt_key("tools") for p in plans}
    assert len({k for (v, _), k in keys.items() if v != "easy"}) == 1
    assert keys[("easy", 1)] == keys[("easy", 4)] != keys[("full", 1)]
    easy = next(p for p in plans if p.variant.name == "easy")
    assert easy.config.lam == 0.0 and easy.variant.side == "full"
    assert all(p.config.demos_per_tool == 4 for p in plans)
    mc = plan_trial({"variant": "full", "search": "mc", "dropout": 0.5}, base, 3)
    assert mc.config.examples.method == "mc" and mc.drop == 0.5
    assert mc.opt_key("tools") != plans[0].opt_key("tools")
