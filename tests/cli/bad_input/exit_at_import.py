"""A tools module that exits at import (tests/cli/bad_input)."""

import sys

sys.exit("no configuration found: set LOAN_CONFIG")


def loan_payment(principal: float, annual_rate: float, years: int) -> float:
    return principal
