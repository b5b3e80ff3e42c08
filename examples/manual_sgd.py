"""Training without an optimizer: gradient descent written out by hand (seed 003, Part 5).

What ``optimizer.step()`` and ``optimizer.zero_grad()`` do, spelled out:
  1. ``loss.backward()`` fills ``.grad`` of every leaf that requires grad;
  2. the update ``w -= lr * w.grad`` runs under ``no_grad()``, so it is not recorded in the graph
     (and in-place on a leaf that requires grad is allowed there);
  3. ``.grad`` accumulates across backward calls, so it must be zeroed before the next step.

The script runs unchanged with ``import torch``: the data are deterministic (no random numbers),
so both libraries print the same lines.
"""
import dyngrad as torch

# -- the notes' version: minimise (w - 3)^2 starting from w = 1 -----------------------------------
w = torch.tensor(1.0, requires_grad=True)
for _ in range(5):
    loss = (w - 3) ** 2
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad          # manual update, not recorded by autograd
    w.grad.zero_()                 # otherwise the next backward adds to this gradient
print("after 5 steps:", w)         # each step closes 20% of the gap: 3 - 2 * 0.8**5 = 2.3446

# -- linear regression y = 3x + 2 (plus a little deterministic "noise") ---------------------------
x = torch.linspace(-1, 1, 50).unsqueeze(1)            # (50, 1) inputs
y = 3 * x + 2 + 0.05 * torch.sin(17 * x)              # targets

weight = torch.zeros(1, 1, requires_grad=True)
bias = torch.zeros(1, requires_grad=True)
lr = 0.1
for step in range(301):
    pred = x @ weight + bias
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in (weight, bias):
            p -= lr * p.grad
            p.grad = None          # what zero_grad(set_to_none=True) does
    if step % 75 == 0:
        print(f"step {step:3d}  loss {loss.item():.6f}")

print(f"learned: w = {weight.item():.2f}, b = {bias.item():.2f}   (true: w = 3, b = 2)")
print("the update was not recorded:", weight.grad_fn is None and weight.is_leaf)
