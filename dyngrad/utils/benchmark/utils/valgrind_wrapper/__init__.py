"""Callgrind result containers (``timer_interface``); dyngrad does not run valgrind."""
