"""torch.distributions: probability distributions, transforms, constraints and KL
divergences, with torch's numbers (log_prob, entropy, moments) and torch's sampling streams
where dyngrad has the same underlying draws.

Differences from torch: see gamma_family.py's docstring (Dirichlet and Beta rsample
gradients).
"""
from . import constraints, transforms  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .exp_family import ExponentialFamily  # noqa: F401
from .transformed_distribution import Independent, TransformedDistribution  # noqa: F401
from .continuous import (Cauchy, Exponential, Gumbel, HalfNormal, Laplace, LogNormal,  # noqa
                         Normal, Uniform)
from .transforms import *  # noqa: F401,F403
from .discrete import (Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical,  # noqa
                       OneHotCategoricalStraightThrough, Poisson)
from .gamma_family import Beta, Chi2, Dirichlet, Gamma, StudentT  # noqa: F401
from .multivariate_normal import MultivariateNormal  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
