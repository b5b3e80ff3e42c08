"""dyngrad.optim: optimizers and learning-rate schedulers (torch.optim)."""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from ._stateless import swap_in_optimizer_params_and_state
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from . import swa_utils  # noqa: F401,E402  (imports dyngrad.nn)

__all__ = ["Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS",
           "lr_scheduler", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD",
           "SparseAdam", "swa_utils", "swap_in_optimizer_params_and_state"]
