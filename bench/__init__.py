"""dyngrad's performance suite: dyngrad, torch and hand-written NumPy side by side in one run."""
