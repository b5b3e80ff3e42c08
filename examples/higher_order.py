"""Higher-order derivatives: differentiate a gradient again with ``create_graph=True``
(seed 003, Part 5, scenario 2).

``autograd.grad(y, x, create_graph=True)`` returns a gradient that is itself part of a graph
(its ``grad_fn`` is set), so it can be differentiated again. Without ``create_graph`` the
gradient is a plain constant: ``retain_graph`` alone only keeps the *old* graph alive.

Runs unchanged with ``import torch`` and prints the same lines.
"""
import math

import dyngrad as torch

# -- the notes' example: y = x^3 at x = 2 ---------------------------------------------------------
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy,) = torch.autograd.grad(y, x, create_graph=True)     # 3x^2 = 12, with a grad_fn
(d2y,) = torch.autograd.grad(dy, x, create_graph=True)   # 6x = 12
(d3y,) = torch.autograd.grad(d2y, x)                     # 6
print("dy/dx   =", dy)
print("d2y/dx2 =", d2y)
print("d3y/dx3 =", d3y)

# -- without create_graph the gradient is a constant and cannot be differentiated again ----------
(g,) = torch.autograd.grad(x ** 3, x)
print("without create_graph: requires_grad =", g.requires_grad, " grad_fn =", g.grad_fn)

# -- the derivatives of sin cycle with period 4: cos, -sin, -cos, sin ----------------------------
t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
d = torch.sin(t)
for order in range(1, 5):
    (d,) = torch.autograd.grad(d, t, create_graph=True)
    print(f"d^{order}/dt^{order} sin(t) at 0.5 = {d.item():+.6f}")
expected = [math.cos(0.5), -math.sin(0.5), -math.cos(0.5), math.sin(0.5)]
print("closed forms:", " ".join(f"{v:+.6f}" for v in expected))

# -- a mixed partial and a Hessian, built row by row ----------------------------------------------
p = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
f = p[0] ** 2 * p[1] ** 3                                  # f(a, b) = a^2 b^3
(grad,) = torch.autograd.grad(f, p, create_graph=True)     # (2ab^3, 3a^2b^2) = (16, 12)
rows = [torch.autograd.grad(grad[i], p, retain_graph=True)[0] for i in range(2)]
hessian = torch.stack(rows)                                # [[2b^3, 6ab^2], [6ab^2, 6a^2 b]]
print("gradient:", grad.detach())
print("hessian:\n", hessian, sep="")
print("symmetric (d2f/dadb == d2f/dbda):", bool(hessian[0, 1] == hessian[1, 0]))
