"""Ready-made parametrizations (torch.nn.utils.parametrizations): ``orthogonal``,
``spectral_norm`` and ``weight_norm``, each registered with
``parametrize.register_parametrization``.

Note [Orthogonal maps]
~~~~~~~~~~~~~~~~~~~~~~
``orthogonal`` maps an unconstrained matrix ``X`` (n x k, n >= k after transposing a wide
one) to one with orthonormal columns:

- ``matrix_exp``: ``A = tril(X) - tril(X)^H`` (padded to n x n), ``Q = exp(A)[:, :k]``;
- ``cayley``: ``Q = (I - A/2)^{-1} (I + A/2)`` likewise;
- ``householder``: the product of the reflectors ``I - tau v v^H`` stored below the diagonal
  of ``X`` (LAPACK's geqrf layout), with ``tau = 2 / (1 + |v|^2)``, its columns signed by
  ``X``'s diagonal.

With ``use_trivialization`` (default) a buffer ``base`` holds an orthogonal matrix and the
result is ``base @ Q``; assigning to the weight sets ``base`` to the orthogonalized value and
the original to the pre-image of the identity. We compute the Householder product with tensor
ops (differentiable, double backward included), and geqrf with the backend's QR in "raw"
mode, which is LAPACK's geqrf output.
"""
from __future__ import annotations

from enum import Enum, auto

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _is_conv_transpose, _register_load_state_dict_pre_hook
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _dg():
    import dyngrad
    return dyngrad


def _geqrf(A):
    """(a, tau) of LAPACK's geqrf for a matrix or batch (no gradient, as torch)."""
    dg = _dg()
    if hasattr(dg, "geqrf"):
        return dg.geqrf(A)
    import numpy as np
    arr = np.asarray(A.detach().cpu().numpy())
    batch = arr.shape[:-2]
    m, n = arr.shape[-2:]
    flat = arr.reshape((-1, m, n))
    a_out = np.empty_like(flat)
    tau_out = np.empty(flat.shape[:1] + (min(m, n),), dtype=arr.dtype)
    for i, mat in enumerate(flat):
        h, tau = np.linalg.qr(mat, mode="raw")   # h is geqrf's output, transposed
        a_out[i], tau_out[i] = h.T, tau
    a = dg.from_numpy(a_out.reshape(arr.shape)).to(A.device)
    tau = dg.from_numpy(tau_out.reshape(batch + (min(m, n),))).to(A.device)
    return a, tau


def _householder_product(A, tau):
    """The first n columns of ``H_0 H_1 ... H_{k-1}``, ``H_i = I - tau_i v_i v_i^H`` with
    ``v_i`` = column i of A below the diagonal and 1 on it. See Note [Orthogonal maps]."""
    dg = _dg()
    if hasattr(dg.linalg, "householder_product"):
        return dg.linalg.householder_product(A, tau)
    m, n = A.size(-2), A.size(-1)
    eye = dg.eye(m, n, dtype=A.dtype, device=A.device)
    V = A.tril(-1) + eye
    Q = eye.expand(*A.shape[:-2], m, n)
    for i in range(tau.size(-1) - 1, -1, -1):
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mH @ Q))
    return Q


def _is_orthogonal(Q, eps=None):
    dg = _dg()
    n, k = Q.size(-2), Q.size(-1)
    Id = dg.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * dg.finfo(Q.dtype).eps
    return dg.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition with R's diagonal made positive."""
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    base: Tensor

    def __init__(self, weight, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        dg = _dg()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = dg.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = dg.matrix_exp(A)
            else:
                Id = dg.eye(n, dtype=A.dtype, device=A.device)
                Q = dg.linalg.solve(dg.add(Id, A, alpha=-0.5), dg.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        dg = _dg()
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            # householder: geqrf's reflectors, the diagonal holding the column signs
            A, tau = _geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            # complete to a square matrix with random columns, then orthogonalize
            N = dg.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(dg.cat([Q, N], dim=-1))
        self.base = Q
        # the original becomes the pre-image of the identity: -Id (see forward)
        neg_Id = dg.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` to an orthogonal (or unitary) matrix, or one with
    orthonormal rows/columns when not square. See Note [Orthogonal maps].

    Args:
        module (nn.Module): the module.
        name (str, optional): the tensor. Default ``"weight"``.
        orthogonal_map (str, optional): ``"matrix_exp"``, ``"cayley"`` or
            ``"householder"``; default ``matrix_exp`` for square or complex matrices,
            ``householder`` otherwise.
        use_trivialization (bool, optional): keep a ``base`` buffer (dynamic trivialization).

    Example::

        >>> orth_linear = orthogonal(nn.Linear(20, 40))
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: ``original0`` is the magnitude
    ``g``, ``original1`` the direction ``v``. A load-state-dict hook accepts the legacy
    ``<name>_g`` / ``<name>_v`` keys.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.parametrizations.weight.original0.size()
        torch.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    _register_load_state_dict_pre_hook(module, _weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the top singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got "
                                 f"{weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim())
                                                if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        from ... import mv
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        from ... import mv, vdot
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: backward must see the u, v of this call, not later in-place updates
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration on the
    buffers ``parametrizations.<name>[0]._u`` / ``._v`` (updated in training mode).

    Args:
        module (nn.Module): the module.
        name (str, optional): the weight. Default ``"weight"``.
        n_power_iterations (int, optional): power iteration steps per call in training.
        eps (float, optional): added in the normalizations.
        dim (int, optional): the output dimension (default 0, or 1 for ConvTranspose).

    Example::

        >>> snm = spectral_norm(nn.Linear(20, 40))
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
