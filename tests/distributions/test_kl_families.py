"""Every KL pair torch registers between concrete families dyngrad has, against torch's
kl_divergence: values (infinities included) and gradients with respect to p's and q's
parameters."""
import numpy as np
import pytest
import torch

import dyngrad

R = np.random.default_rng(21)
A = R.uniform(0.5, 2.0, (3,))
B = R.uniform(0.5, 2.0, (3,))
C = R.uniform(2.5, 4.0, (3,))
U = R.uniform(0.1, 0.9, (3,))
L = R.normal(size=(3,))
W = R.normal(size=(2, 3, 2))
SPD = np.eye(3) * 2 + 0.3

# family -> [parameter sets]; two sets so p and q differ
PARAMS = {
    "Bernoulli": [dict(probs=U), dict(probs=U[::-1].copy())],
    "Beta": [dict(concentration1=A, concentration0=B), dict(concentration1=B, concentration0=C)],
    "Binomial": [dict(total_count=np.full(3, 6.0), probs=U),
                 dict(total_count=np.full(3, 6.0), probs=U[::-1].copy())],
    "Categorical": [dict(probs=R.uniform(0.1, 1, (2, 3))), dict(logits=R.normal(size=(2, 3)))],
    "ContinuousBernoulli": [dict(probs=np.array([0.2, 0.4995, 0.8])), dict(logits=L)],
    "Dirichlet": [dict(concentration=R.uniform(0.5, 3, (2, 3))),
                  dict(concentration=R.uniform(0.5, 3, (2, 3)))],
    "Exponential": [dict(rate=A), dict(rate=B)],
    "Gamma": [dict(concentration=A, rate=B), dict(concentration=C, rate=A)],
    "Gumbel": [dict(loc=L, scale=A), dict(loc=L + 0.5, scale=B)],
    "Geometric": [dict(probs=U), dict(probs=U[::-1].copy())],
    "HalfNormal": [dict(scale=A), dict(scale=B)],
    "Laplace": [dict(loc=L, scale=A), dict(loc=-L, scale=B)],
    "LowRankMultivariateNormal": [dict(loc=R.normal(size=(2, 3)), cov_factor=W, cov_diag=A),
                                  dict(loc=L, cov_factor=W[:1] * 0.5, cov_diag=B)],
    "MultivariateNormal": [dict(loc=L, covariance_matrix=SPD),
                           dict(loc=R.normal(size=(2, 3)), scale_tril=np.linalg.cholesky(
                               SPD * 1.5)[None].repeat(2, 0))],
    "Normal": [dict(loc=L, scale=A), dict(loc=L[::-1].copy(), scale=B)],
    "OneHotCategorical": [dict(probs=R.uniform(0.1, 1, (2, 3))),
                          dict(probs=R.uniform(0.1, 1, (2, 3)))],
    "Pareto": [dict(scale=A, alpha=C), dict(scale=A * 0.8, alpha=np.array([0.5, 1.5, 2.5]))],
    "Poisson": [dict(rate=A), dict(rate=B)],
    "Uniform": [dict(low=U * 0.5, high=U * 0.5 + 0.4), dict(low=L - 3, high=L + 3)],
    "Cauchy": [dict(loc=L, scale=A), dict(loc=-L, scale=B)],
}
NO_GRAD = {"total_count"}


def build(lib, name, which, requires_grad=False):
    params = {}
    for k, v in PARAMS[name][which].items():
        t = lib.tensor(np.asarray(v), dtype=lib.float64)
        if requires_grad and k not in NO_GRAD:
            t.requires_grad_(True)
        params[k] = t
    return getattr(lib.distributions, name)(**params), params


PAIRS = sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
               if p.__name__ in PARAMS and q.__name__ in PARAMS)


def test_every_concrete_torch_pair_is_registered():
    assert len(PAIRS) > 80
    names = {(p.__name__, q.__name__) for p, q in dyngrad.distributions.kl._KL_REGISTRY}
    assert [pq for pq in PAIRS if pq not in names] == []


def _same_shape_batch(a, b):
    return tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize("pq", PAIRS, ids=lambda x: f"{x[0]}-{x[1]}")
@pytest.mark.parametrize("which", [(0, 1), (1, 0)])
def test_kl_pair_like_torch(pq, which):
    p, q = pq
    tp, tpp = build(torch, p, which[0], True)
    dp, dpp = build(dyngrad, p, which[0], True)
    tq, tqp = build(torch, q, which[1], True)
    dq, dqp = build(dyngrad, q, which[1], True)
    try:
        tk = torch.distributions.kl_divergence(tp, tq)
    except Exception as e:         # noqa: BLE001  (the same error is what must match)
        with pytest.raises(type(e)) as de:
            dyngrad.distributions.kl_divergence(dp, dq)
        assert str(de.value) == str(e)
        return
    dk = dyngrad.distributions.kl_divergence(dp, dq)
    np.testing.assert_allclose(dk.detach().numpy(), tk.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    assert _same_shape_batch(dk, tk)
    finite = torch.isfinite(tk)
    if not tk.requires_grad or not bool(finite.any()):
        return
    tk[finite].sum().backward()
    dk[dyngrad.tensor(finite.numpy())].sum().backward()
    for tparams, dparams in ((tpp, dpp), (tqp, dqp)):
        for k in tparams:
            tg, dg = getattr(tparams[k], "grad", None), getattr(dparams[k], "grad", None)
            if tg is None:
                assert dg is None or not dg.detach().numpy().any(), k
                continue
            np.testing.assert_allclose(dg.numpy(), tg.numpy(), rtol=1e-7, atol=1e-10,
                                       err_msg=k)
