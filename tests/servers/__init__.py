"""MCP servers the tests run as subprocesses."""
