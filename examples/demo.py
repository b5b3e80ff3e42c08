"""dyngrad's main demo: train a small CNN on handwritten digits (scikit-learn's bundled copy of
the UCI digits, 1797 8x8 images; no download) with the pieces a PyTorch user reaches for:
nn.Module layers with BatchNorm and Dropout, a DataLoader, AdamW with a learning-rate
schedule, a tqdm progress bar, and saving and reloading the model.

Run it with ``make demo``. Change the import to ``import torch`` and it runs on PyTorch.
"""
import os
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import dyngrad as torch
from dyngrad import nn
from dyngrad.utils.data import DataLoader, TensorDataset


class DigitsCNN(nn.Module):
    """conv-bn-relu-pool twice, then dropout and a linear classifier: 8x8 -> 10 classes."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_data(seed=0):
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]          # (N, 1, 8, 8) in [0, 1]
    y = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.25, random_state=seed,
                                              stratify=y)
    mean, std = x_tr.mean(), x_tr.std()
    to_set = lambda a, b: TensorDataset(torch.from_numpy((a - mean) / std), torch.from_numpy(b))
    return to_set(x_tr, y_tr), to_set(x_te, y_te)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return correct / total


def main(epochs=12, batch_size=64):
    torch.manual_seed(0)
    train_set, test_set = load_data()
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True,
                              generator=torch.Generator().manual_seed(0))
    test_loader = DataLoader(test_set, batch_size=256)
    model = DigitsCNN()
    print(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs,
                                                    steps_per_epoch=len(train_loader))
    loss_fn = nn.CrossEntropyLoss()
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        seen = correct = 0
        running = 0.0
        bar = tqdm(train_loader, desc=f"epoch {epoch + 1:2d}/{epochs}", leave=True)
        for x, y in bar:
            optimizer.zero_grad()
            logits = model(x)
            loss = loss_fn(logits, y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            seen += len(y)
            bar.set_postfix(loss=f"{running / seen:.4f}", acc=f"{correct / seen:.3f}")
    elapsed = time.perf_counter() - start
    accuracy = evaluate(model, test_loader)
    print(f"test accuracy: {accuracy:.4f} ({len(test_set)} images), training took {elapsed:.1f} s")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits_cnn.pt")
        torch.save(model.state_dict(), path)
        reloaded = DigitsCNN()
        reloaded.load_state_dict(torch.load(path))     # weights_only=True: safe by default
    again = evaluate(reloaded, test_loader)
    print(f"saved, reloaded into a new DigitsCNN: test accuracy {again:.4f}")
    assert again == accuracy
    return accuracy


if __name__ == "__main__":
    main()
