"""The implementation modules of ``dyngrad.utils.benchmark`` (laid out as torch's)."""
