"""torch.version: facts about the build. dyngrad is plain Python on NumPy and has no build: the
version is dyngrad's own (``dyngrad.__version__`` is it, as a TorchVersion), it is built for no
accelerator (``cuda``, ``hip``, ``rocm`` and ``xpu`` are None, as in torch's CPU build), it has
no debug build, and ``git_version`` is "Unknown", the value torch records for a build made
outside a git checkout: there is no build step to record a commit."""
from typing import Optional

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]
__version__ = "0.1.0"
debug = False
cuda: Optional[str] = None
git_version = "Unknown"
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
