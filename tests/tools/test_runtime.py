import asyncio

from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime


def test_runtime_executes_validates_and_logs(example_tools, exec_ctx, store):
    rt = ToolRuntime(example_tools, exec_ctx, store)
    try:
        ok = asyncio.run(rt.run(Invocation("loan_payment", {"principal": 1000, "annual_rate": 5,
                                                            "years": 1})))
        assert ok.ok and ok.output["monthly_payment"] == 85.61
        bad = asyncio.run(rt.run(Invocation("loan_payment", {"principal": "x"})))
        assert not bad.ok and bad.error_type == "schema"
        err = asyncio.run(rt.run(Invocation("convert_units", {"value": 1, "from_unit": "miles",
                                                              "to_unit": "km"})))
        assert not err.ok and err.error_type == "exception" and "mi" in err.error
        again = asyncio.run(rt.run(Invocation("loan_payment", {"principal": 1000,
                                                               "annual_rate": 5, "years": 1})))
        assert again.output == ok.output and rt.executions == 2 and rt.cache_hits == 1
    finally:
        rt.close()
