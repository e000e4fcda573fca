"""Shared test data of the method's tests: verified examples of ``loan_payment``, executed."""

import asyncio

from play2prompt.method.example_search import Example
from play2prompt.tools.model import Invocation


def loan_examples(engine, n=6):
    """``n`` examples of ``loan_payment``, each executed by ``engine``'s runtime."""
    async def build():
        out = []
        for k in range(1, n + 1):
            inv = Invocation("loan_payment", {"principal": 1000 * k, "annual_rate": 5,
                                              "years": k})
            obs = await engine.runtime.run(inv)
            out.append(Example("loan_payment", f"I borrow {1000 * k} at 5 percent for {k} years",
                               inv, obs, "", 3.0, 1.0, 4.0, {}))
        return out

    return asyncio.run(build())
