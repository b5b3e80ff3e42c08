"""``torch.utils.benchmark``: time statements (``Timer``), keep and print the results
(``Measurement``, ``Compare``) and generate randomized inputs (``Fuzzer``).

    from dyngrad.utils.benchmark import Timer
    print(Timer("x @ x", globals={"x": dyngrad.ones(64, 64)}).blocked_autorange())

The statement's ``torch`` is dyngrad unless ``globals`` binds it. C++ statements and
``Timer.collect_callgrind`` are not supported (NotImplementedError); the Callgrind result
classes exist as plain data.
"""
from .utils.common import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.fuzzer import *  # noqa: F401,F403
from .utils.valgrind_wrapper.timer_interface import *  # noqa: F401,F403
from .utils.sparse_fuzzer import *  # noqa: F401,F403
