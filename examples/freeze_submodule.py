"""Freezing part of a model with ``requires_grad_(False)`` (seed 001, "locally disabling
gradient computation"; seed 004 on fine-tuning).

A frozen parameter does not require grad, so operations that use only frozen parameters (and
inputs that do not require grad) are not recorded at all: backward never reaches them and their
``.grad`` stays ``None``. ``module.requires_grad_(False)`` sets this for every parameter of the
sub-module. This is different from ``model.eval()``, which only changes layers such as Dropout
and BatchNorm, and from ``no_grad()``, which stops recording for everything inside the block.

The weights are set deterministically, so the script prints the same lines under
``import torch``.
"""
import dyngrad as torch
from dyngrad import nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
with torch.no_grad():                      # deterministic weights instead of random init
    for i, p in enumerate(model.parameters()):
        p.copy_(0.4 * torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i)
                .reshape(p.shape))

# Freeze the "pretrained feature extractor" (the first two Linear layers) ...
backbone = model[:4]
backbone.requires_grad_(False)
# ... and check what is left to train
trainable = [name for name, p in model.named_parameters() if p.requires_grad]
frozen = [name for name, p in model.named_parameters() if not p.requires_grad]
print("trainable:", trainable)
print("frozen:   ", frozen)
n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
n_total = sum(p.numel() for p in model.parameters())
print(f"trainable parameters: {n_train} of {n_total}")

x = torch.linspace(-1, 1, 64).reshape(16, 4)
y = (x[:, :1] * x[:, 1:2] - x[:, 2:3]).sin()           # a target the head has to fit

# The frozen part is not recorded: its output has no grad_fn and does not require grad
features = backbone(x)
print("backbone output requires_grad:", features.requires_grad, " grad_fn:", features.grad_fn)

snapshot = [p.detach().clone() for p in model.parameters()]
lr = 0.1
for step in range(101):
    loss = nn.functional.mse_loss(model(x), y)
    model.zero_grad()                      # grads to None (set_to_none=True)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:         # frozen parameters never get a gradient
                p -= lr * p.grad
    if step % 25 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")

changed = [name for (name, p), old in zip(model.named_parameters(), snapshot)
           if not torch.equal(p, old)]
print("changed by training:", changed)
print("frozen grads:", [p.grad for p in backbone.parameters()])

# Unfreezing is the same call with True; the whole model trains again
model.requires_grad_(True)
print("after unfreezing, all trainable:", all(p.requires_grad for p in model.parameters()))
