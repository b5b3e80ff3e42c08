"""A custom autograd.Function checked with gradcheck (seed 003, "LeakyReLU" challenge).

The notes' version has two problems that ``gradcheck`` finds:
  1. its backward ignores ``grad_output`` (it returns the local slope 1 / 0.1 for every
     element), so it is only right when the incoming gradient is all ones, as in
     ``y.sum().backward()``; the chain rule needs ``grad_output * slope``;
  2. gradcheck compares with finite differences, which are meaningless at the kink x = 0
     (the central difference there is (1 + 0.1) / 2 = 0.55), so check away from it.

Runs unchanged with ``import torch`` and prints the same lines.
"""
import dyngrad as torch
from dyngrad.autograd import gradcheck, gradgradcheck


class NotesLeakyReLU(torch.autograd.Function):
    """As written in the notes."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return torch.where(input > 0, input, 0.1 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input > 0] = 1.0          # overwrites grad_output instead of scaling it
        grad_input[input <= 0] = 0.1
        return grad_input


class MyLeakyReLU(torch.autograd.Function):
    """Fixed: the chain rule, grad_input = grad_output * f'(input)."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return torch.where(input > 0, input, 0.1 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * torch.where(input > 0, 1.0, 0.1)


# Step 2 of the notes: with y.sum() both versions give the right gradient ...
for fn in (NotesLeakyReLU, MyLeakyReLU):
    x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    fn.apply(x).sum().backward()
    print(f"{fn.__name__:15s} grad of y.sum():", x.grad)

# ... but with any other incoming gradient the notes' version is wrong
for fn in (NotesLeakyReLU, MyLeakyReLU):
    x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    (fn.apply(x) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    print(f"{fn.__name__:15s} grad of (y * [1, 2, 3]).sum():", x.grad)

# Step 3: gradcheck (float64 inputs; finite differences need the precision)
x_notes = torch.tensor([1.0, -1.0, 0.0], dtype=torch.double, requires_grad=True)
x_smooth = torch.tensor([1.0, -1.0, 0.5, -0.3], dtype=torch.double, requires_grad=True)
for fn in (NotesLeakyReLU, MyLeakyReLU):
    for name, x in (("notes' input (has 0)", x_notes), ("away from the kink", x_smooth)):
        try:
            ok = gradcheck(fn.apply, (x,), eps=1e-6, atol=1e-4)
            print(f"{fn.__name__:15s} {name:22s} gradcheck: {ok}")
        except Exception as e:   # GradcheckError (a RuntimeError) with the two Jacobians
            print(f"{fn.__name__:15s} {name:22s} gradcheck failed: {str(e).splitlines()[0]}")

# The fixed backward is built from differentiable ops, so its second derivative works too
print("MyLeakyReLU gradgradcheck:", gradgradcheck(MyLeakyReLU.apply, (x_smooth,)))
y = MyLeakyReLU.apply(x_smooth)
print("grad_fn name:", type(y.grad_fn).__name__)
