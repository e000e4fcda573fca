"""An MCP server written as tool authors write one (the SDK's MCPServer, FastMCP before v2):
the fixture of p2p apply's tests. One tool documented by ``description=``, one by its
docstring, a parameter by ``Field(description=...)``."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

server = MCPServer("apply-fixture")


@server.tool(name="loan", description="Loan calculator.")  # the author's comment
def loan_payment(
    principal: Annotated[float, Field(description="loan amount")],   # dollars
    annual_rate: float,
    years: int,
) -> float:
    rate = annual_rate / 100 / 12
    months = years * 12
    return round(principal * rate / (1 - (1 + rate) ** -months), 2)


@server.tool()
def add_days(date: str, days: int) -> str:
    """Date calculator."""
    import datetime as dt

    return (dt.date.fromisoformat(date) + dt.timedelta(days=days)).isoformat()


if __name__ == "__main__":
    server.run()
