"""torch.distributions' one-distribution submodules (``torch.distributions.normal``...), which
dyngrad's files group differently (Normal lives in continuous.py with its neighbours).

Note [Distribution submodules]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Users write ``from torch.distributions.normal import Normal`` and ``import
torch.distributions.categorical``. For each such torch submodule dyngrad has no file of, the
table below names what torch's defines (its ``__all__``) and the other public names it imports
(base classes, transforms, ``broadcast_all``... but not typing's names; ``Number`` is
torch.types', a dotted name another module's); ``install`` makes a
module object holding those very objects, registers it in ``sys.modules`` (so the import
statement finds it, in a fresh interpreter too: importing the package runs this first) and sets
it as an attribute of the package. Every module also has ``Tensor``, as all of torch's do.
"""
from __future__ import annotations

import importlib.machinery
import math
import numbers
import sys
import types

# submodule: (its __all__, the other names torch's imports)
_TABLE = {
    "bernoulli": ("Bernoulli", "ExponentialFamily Number binary_cross_entropy_with_logits "
                  "broadcast_all lazy_property logits_to_probs nan probs_to_logits"),
    "beta": ("Beta", "Dirichlet ExponentialFamily broadcast_all"),
    "binomial": ("Binomial", "Distribution broadcast_all lazy_property logits_to_probs "
                 "probs_to_logits"),
    "categorical": ("Categorical", "Distribution lazy_property logits_to_probs nan "
                    "probs_to_logits"),
    "cauchy": ("Cauchy", "Distribution broadcast_all inf nan"),
    "chi2": ("Chi2", "Gamma"),
    "continuous_bernoulli": ("ContinuousBernoulli", "ExponentialFamily Number "
                             "binary_cross_entropy_with_logits broadcast_all clamp_probs "
                             "lazy_property logits_to_probs probs_to_logits"),
    "dirichlet": ("Dirichlet", "ExponentialFamily Function once_differentiable"),
    "exponential": ("Exponential", "ExponentialFamily broadcast_all"),
    "fishersnedecor": ("FisherSnedecor", "Distribution Gamma broadcast_all nan"),
    "gamma": ("Gamma", "ExponentialFamily broadcast_all"),
    "generalized_pareto": ("GeneralizedPareto", "Distribution numbers.Number numbers.Real "
                           "broadcast_all inf nan"),
    "geometric": ("Geometric", "Distribution Number binary_cross_entropy_with_logits "
                  "broadcast_all lazy_property logits_to_probs probs_to_logits"),
    "gumbel": ("Gumbel", "AffineTransform ExpTransform TransformedDistribution Uniform "
               "broadcast_all euler_constant"),
    "half_cauchy": ("HalfCauchy", "AbsTransform Cauchy TransformedDistribution inf"),
    "half_normal": ("HalfNormal", "AbsTransform Normal TransformedDistribution inf"),
    "independent": ("Independent", "Distribution Size"),
    "inverse_gamma": ("InverseGamma", "Gamma PowerTransform TransformedDistribution"),
    "kumaraswamy": ("Kumaraswamy", "AffineTransform PowerTransform TransformedDistribution "
                    "Uniform broadcast_all euler_constant nan"),
    "laplace": ("Laplace", "Distribution broadcast_all"),
    "lkj_cholesky": ("LKJCholesky", "Beta Distribution broadcast_all"),
    "log_normal": ("LogNormal", "ExpTransform Normal TransformedDistribution"),
    "logistic_normal": ("LogisticNormal", "Independent Normal StickBreakingTransform "
                        "TransformedDistribution"),
    "lowrank_multivariate_normal": ("LowRankMultivariateNormal", "Distribution lazy_property"),
    "mixture_same_family": ("MixtureSameFamily", "Categorical Distribution "
                            "MixtureSameFamilyConstraint"),
    "multinomial": ("Multinomial", "Binomial Categorical Distribution broadcast_all inf"),
    "negative_binomial": ("NegativeBinomial", "Distribution Gamma broadcast_all lazy_property "
                          "logits_to_probs probs_to_logits"),
    "normal": ("Normal", "ExponentialFamily broadcast_all"),
    "one_hot_categorical": ("OneHotCategorical OneHotCategoricalStraightThrough",
                            "Categorical Distribution"),
    "pareto": ("Pareto", "AffineTransform ExpTransform Exponential TransformedDistribution "
               "broadcast_all"),
    "poisson": ("Poisson", "ExponentialFamily Number broadcast_all"),
    "relaxed_bernoulli": ("LogitRelaxedBernoulli RelaxedBernoulli",
                          "Distribution Number SigmoidTransform TransformedDistribution "
                          "broadcast_all clamp_probs lazy_property logits_to_probs "
                          "probs_to_logits"),
    "relaxed_categorical": ("ExpRelaxedCategorical RelaxedOneHotCategorical",
                            "Categorical Distribution ExpTransform TransformedDistribution "
                            "broadcast_all clamp_probs"),
    "studentT": ("StudentT", "Chi2 Distribution broadcast_all inf nan"),
    "uniform": ("Uniform", "Distribution broadcast_all nan"),
    "von_mises": ("VonMises", "Distribution broadcast_all lazy_property"),
    "weibull": ("Weibull", "AffineTransform Exponential PowerTransform TransformedDistribution "
                "broadcast_all euler_constant"),
}


def _namespaces(package) -> list:
    """Where the table's names are found, first match wins."""
    from .. import Size, Tensor
    from ..types import Number
    from ..autograd.function import Function, once_differentiable
    from ..nn.functional import binary_cross_entropy_with_logits
    from . import constraints, transformed_families, utils
    others = {"Tensor": Tensor, "Size": Size, "Number": Number, "numbers.Number": numbers.Number,
              "numbers.Real": numbers.Real,
              "inf": math.inf, "nan": math.nan, "Function": Function,
              "once_differentiable": once_differentiable,
              "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits}
    return [others, vars(package), vars(utils), vars(constraints), vars(transformed_families)]


def install(package) -> None:
    """Register the table's modules under `package` (Note [Distribution submodules])."""
    spaces = _namespaces(package)

    def lookup(name):
        for ns in spaces:
            if name in ns:
                return ns[name]
        raise AttributeError(f"{name} is in no namespace the submodules take names from")

    for name, (defined, imported) in _TABLE.items():
        full = f"{package.__name__}.{name}"
        public = defined.split()
        where = lookup(public[0]).__module__
        module = types.ModuleType(full, f"torch.distributions.{name}: {', '.join(public)} "
                                        f"(defined in {where}).")
        module.__package__ = package.__name__
        module.__spec__ = importlib.machinery.ModuleSpec(full, None)
        module.__all__ = public
        for n in public + imported.split() + ["Tensor"]:
            setattr(module, n.rpartition(".")[2], lookup(n))
        sys.modules[full] = module
        setattr(package, name, module)
