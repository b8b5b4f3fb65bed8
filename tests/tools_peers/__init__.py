"""Servers whose tools ``mcpgen tools`` binds in the tests, and the user code that calls them."""
