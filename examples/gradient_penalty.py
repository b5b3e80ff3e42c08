"""Gradient penalty (WGAN-GP): a loss that contains a gradient (seed 003, Part 5, scenario 3).

The critic should be 1-Lipschitz, so WGAN-GP adds ``lambda * (||d critic / d x_hat|| - 1)^2`` at
points ``x_hat`` between real and fake samples. That gradient is taken with
``create_graph=True``, so the penalty can be backpropagated into the critic's weights: a
double backward. The critic is written with plain tensors, and all data are deterministic, so
the script prints the same lines under ``import torch``.
"""
import dyngrad as torch

# -- the notes' snippet: the penalty of a single gradient ----------------------------------------
x = torch.tensor(2.0, requires_grad=True)
y = (x ** 2).sum()
grad = torch.autograd.grad(y, x, create_graph=True)[0]   # dy/dx = 2x = 4
penalty = (grad.norm() - 1) ** 2                           # (4 - 1)^2 = 9
penalty.backward()                                         # d/dx (2x - 1)^2 = 4 (2x - 1) = 12
print("grad =", grad.item(), " penalty =", penalty.item(), " d penalty/dx =", x.grad.item())

# -- a small critic, trained a few steps with the penalty ----------------------------------------
def init(rows, cols, phase):
    """Deterministic weights (no RNG, so torch and dyngrad start from the same point)."""
    return (0.5 * torch.sin(torch.arange(rows * cols, dtype=torch.float32) + phase)
            ).reshape(rows, cols).requires_grad_()

w1, w2 = init(2, 16, 0.0), init(16, 1, 1.0)
b1 = torch.zeros(16, requires_grad=True)


def critic(v):
    return torch.tanh(v @ w1 + b1) @ w2


k = torch.arange(32, dtype=torch.float32).unsqueeze(1)
real = torch.cat([torch.cos(k / 5), torch.sin(k / 5)], dim=1)        # points on a circle
fake = 0.3 * torch.cat([torch.cos(k / 3), torch.sin(k / 2)], dim=1)  # the "generator's" points
alpha = ((k * 7) % 32) / 31                                          # mixing weights in [0, 1]
lam, lr = 10.0, 0.01

for step in range(31):
    x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_()
    (g,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + lam * gp
    loss.backward()                            # reaches w1, w2, b1 through g: double backward
    with torch.no_grad():
        for p in (w1, b1, w2):
            p -= lr * p.grad
            p.grad = None
    if step % 10 == 0:
        print(f"step {step:2d}  loss {loss.item():+.4f}  penalty {gp.item():.4f}  "
              f"mean ||grad|| {g.norm(2, dim=1).mean().item():.4f}")

print("g has a grad_fn (create_graph=True):", g.grad_fn is not None)
