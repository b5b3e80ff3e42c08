"""A tour of dyngrad: tensors, their strides and views, torch's dtype promotion and autograd.

Run with ``python examples/tour.py``. Every line below runs unchanged with ``import torch``.
"""
import dyngrad as torch


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


section("Tensors print exactly as in PyTorch")
x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
print(x)
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.int32))
print(torch.tensor([1e-5, 1.0, 1e5]))
print(torch.ones(2, requires_grad=True))

section("Strided storage: views share memory, copies do not")
t = x.t()
print("x.stride() =", x.stride(), "  x.t().stride() =", t.stride(),
      "  contiguous:", t.is_contiguous())
row = x[1]
print("x[1] offset =", row.storage_offset(), " shares storage:",
      row.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
row[0] = 100.0  # writes through the view into x
print("after x[1][0] = 100:\n", x, sep="")
print("x._version =", x._version)
img = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
print("channels_last strides:", img.stride(), " exp() keeps them:", img.exp().stride())

section("dtype promotion follows torch, not NumPy")
kinds = [("int32 tensor", torch.ones(2, dtype=torch.int32)),
         ("float16 tensor", torch.ones(2, dtype=torch.float16)),
         ("float64 0-dim", torch.tensor(1.0, dtype=torch.float64)),
         ("Python float", 2.5), ("Python int", 3), ("bool tensor", torch.ones(2).bool())]
width = max(len(k) for k, _ in kinds)
print(" " * (width + 3) + "  ".join(f"{k:>14}" for k, _ in kinds))
for name_a, a in kinds:
    cells = []
    for name_b, b in kinds:
        if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
            cells.append(f"{'-':>14}")
        else:
            cells.append(f"{str(torch.result_type(a, b)).replace('torch.', ''):>14}")
    print(f"{name_a:>{width}} + " + "  ".join(cells))

section("Autograd: the graph is recorded as ops run (seed 002, seed 003)")
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = torch.tensor([[5., 6.], [7., 8.]], requires_grad=True)
out = (x.pow(2) * y).sum()
print(out)
print("out.grad_fn.next_functions =", out.grad_fn.next_functions[0][0].name(), "←",
      [fn.name() for fn, _ in out.grad_fn.next_functions[0][0].next_functions])
out.backward()
print("x.grad =", x.grad)
print("y.grad =", y.grad)

section("Higher-order derivatives with create_graph")
x = torch.tensor(2.0, requires_grad=True)
g, = torch.autograd.grad(x ** 3, x, create_graph=True)
g2, = torch.autograd.grad(g, x)
print("d/dx x^3 at 2 =", g, "  d2/dx2 =", g2)

section("Version counters catch in-place damage (seed 001 §1.7)")
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:120], "…")
