def __getattr__(name):
    """``dyngrad.utils.checkpoint`` without an import, as in torch; loaded on first use because
    dyngrad.utils is imported while autograd (which checkpoint needs) is still loading."""
    if name == "checkpoint":
        import importlib
        return importlib.import_module(__name__ + ".checkpoint")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
