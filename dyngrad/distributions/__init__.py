"""torch.distributions: probability distributions, transforms, constraints and KL
divergences, with torch's numbers (log_prob, entropy, moments) and torch's sampling streams
where dyngrad has the same underlying draws.

torch's ExpRelaxedCategorical and LogitRelaxedBernoulli live in
transformed_families.py (torch keeps them out of this namespace too). torch's submodules
(``torch.distributions.normal``...) are all importable: see _submodules.py.
"""
import sys as _sys

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
from .transformed_families import (FisherSnedecor, HalfCauchy, InverseGamma,  # noqa: F401
                                   Kumaraswamy, LogisticNormal, Pareto, RelaxedBernoulli,
                                   RelaxedOneHotCategorical, Weibull)
from .count_families import (ContinuousBernoulli, MixtureSameFamily,  # noqa: F401
                             Multinomial, NegativeBinomial)
from .lowrank_vonmises import LowRankMultivariateNormal, VonMises  # noqa: F401
from .wishart import Wishart  # noqa: F401
from .lkj_genpareto import GeneralizedPareto, LKJCholesky  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from . import kl_families  # noqa: F401  (registers the cross-family KL pairs)
from .constraint_registry import biject_to, transform_to  # noqa: F401

from . import _submodules  # noqa: E402  (torch's submodules: Note [Distribution submodules])
_submodules.install(_sys.modules[__name__])
