"""Usage: python3 predict.py <weights.npz> <test.csv> — prints the accuracy on the file."""
import sys
import numpy as np

w = np.load(sys.argv[1])
data = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
x, y = data[:, :2], data[:, 2].astype(int)
z = np.maximum(0, x @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]
print(f"accuracy={(z.argmax(1) == y).mean():.4f}")
