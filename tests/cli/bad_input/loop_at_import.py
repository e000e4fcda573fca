"""A tools module that never finishes importing (tests/cli/bad_input)."""

while True:
    pass


def loan_payment(principal: float, annual_rate: float, years: int) -> float:
    return principal
