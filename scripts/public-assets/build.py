#!/usr/bin/env python3
"""Builds the public hall's seed assets in config/public-assets/ (committed; run again only to change them).

Two small synthetic datasets with fixed seeds and a tiny numpy MLP trained on one of them, so the seed data
is real files a task can read and a model whose stated accuracy is what predict.py measures.
"""
import json
import os
import numpy as np

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', 'config', 'public-assets')
rng = np.random.default_rng(20261124)


def spiral(n_per_class, classes=3, noise=0.45):
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1, n_per_class)
        t = np.linspace(c * 4, (c + 1) * 4, n_per_class) + rng.normal(0, noise, n_per_class)
        xs.append(np.c_[r * np.sin(t), r * np.cos(t)])
        ys.append(np.full(n_per_class, c))
    x, y = np.vstack(xs), np.concatenate(ys)
    order = rng.permutation(len(y))
    return x[order], y[order]


def write_csv(path, header, rows, fmt):
    with open(path, 'w') as f:
        f.write(header + '\n')
        for r in rows:
            f.write(fmt.format(*r) + '\n')


def main():
    d = os.path.join(ROOT, 'dataset-spiral')
    os.makedirs(d, exist_ok=True)
    xtr, ytr = spiral(200)
    xte, yte = spiral(60)
    write_csv(os.path.join(d, 'train.csv'), 'x1,x2,label', [(a, b, int(c)) for (a, b), c in zip(xtr, ytr)], '{:.5f},{:.5f},{}')
    write_csv(os.path.join(d, 'test.csv'), 'x1,x2,label', [(a, b, int(c)) for (a, b), c in zip(xte, yte)], '{:.5f},{:.5f},{}')
    with open(os.path.join(d, 'README.md'), 'w') as f:
        f.write('# 三分类螺旋数据（合成）\n\n二维平面上三条交错的螺旋线，每条一类，常用来演示非线性分类。\n\n'
                '| 文件 | 样本数 | 列 |\n|---|---|---|\n| train.csv | 600 | x1, x2, label |\n| test.csv | 180 | x1, x2, label |\n\n'
                '由 `scripts/public-assets/build.py` 以固定随机种子生成，可在训练任务中直接读取。\n')

    d = os.path.join(ROOT, 'dataset-sine')
    os.makedirs(d, exist_ok=True)
    x = np.sort(rng.uniform(-np.pi, np.pi, 500))
    y = np.sin(x) + rng.normal(0, 0.1, 500)
    write_csv(os.path.join(d, 'data.csv'), 'x,y', zip(x, y), '{:.5f},{:.5f}')
    with open(os.path.join(d, 'README.md'), 'w') as f:
        f.write('# 正弦回归数据（合成）\n\n`y = sin(x) + ε`，x 在 [-π, π] 内均匀取 500 个点，ε ~ N(0, 0.1²)。\n\n'
                '适合演示回归与拟合曲线；由 `scripts/public-assets/build.py` 以固定随机种子生成。\n')

    # A 2-32-3 MLP trained with full-batch gradient descent on the spiral training set.
    w1 = rng.normal(0, 1, (2, 32)); b1 = np.zeros(32)
    w2 = rng.normal(0, 0.1, (32, 3)); b2 = np.zeros(3)
    onehot = np.eye(3)[ytr]
    for _ in range(4000):
        h = np.maximum(0, xtr @ w1 + b1)
        z = h @ w2 + b2
        p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(ytr)
        gw2 = h.T @ g; gb2 = g.sum(0)
        gh = g @ w2.T * (h > 0)
        gw1 = xtr.T @ gh; gb1 = gh.sum(0)
        for param, grad in ((w1, gw1), (b1, gb1), (w2, gw2), (b2, gb2)):
            param -= 1.0 * grad
    acc = float(((np.maximum(0, xte @ w1 + b1) @ w2 + b2).argmax(1) == yte).mean())
    d = os.path.join(ROOT, 'model-spiral-mlp')
    os.makedirs(d, exist_ok=True)
    np.savez(os.path.join(d, 'weights.npz'), w1=w1, b1=b1, w2=w2, b2=b2)
    with open(os.path.join(d, 'metrics.json'), 'w') as f:
        json.dump({'test_accuracy': round(acc, 4)}, f)
    with open(os.path.join(d, 'predict.py'), 'w') as f:
        f.write('"""Usage: python3 predict.py <weights.npz> <test.csv> — prints the accuracy on the file."""\n'
                'import sys\nimport numpy as np\n\n'
                'w = np.load(sys.argv[1])\n'
                'data = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)\n'
                'x, y = data[:, :2], data[:, 2].astype(int)\n'
                'z = np.maximum(0, x @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]\n'
                'print(f"accuracy={(z.argmax(1) == y).mean():.4f}")\n')
    with open(os.path.join(d, 'README.md'), 'w') as f:
        f.write('# 螺旋分类 MLP（numpy）\n\n在“三分类螺旋数据”上训练的两层感知机（2-32-3，ReLU），纯 numpy 实现。\n\n'
                f'- 测试集准确率：**{acc:.4f}**\n- 权重：`weights.npz`（w1, b1, w2, b2）\n\n'
                '```bash\npython3 predict.py weights.npz /path/to/test.csv\n```\n')
    print('test accuracy', acc)


if __name__ == '__main__':
    main()
