"""示例训练脚本：用梯度下降拟合一条直线，每一步把 loss 写入 $SUANLI_METRICS_FILE，控制台据此画训练曲线。"""
import json
import os
import random
import time

random.seed(0)
xs = [i / 50 for i in range(100)]
ys = [3.0 * x + 0.5 + random.gauss(0, 0.05) for x in xs]
w, b, lr = 0.0, 0.0, 0.3
metrics = os.environ.get("SUANLI_METRICS_FILE")
print(f"开始训练：{len(xs)} 个样本，卡 {os.environ.get('CUDA_VISIBLE_DEVICES', '无')}", flush=True)
for step in range(1, 41):
    gw = sum((w * x + b - y) * x for x, y in zip(xs, ys)) * 2 / len(xs)
    gb = sum((w * x + b - y) for x, y in zip(xs, ys)) * 2 / len(xs)
    w, b = w - lr * gw, b - lr * gb
    loss = sum((w * x + b - y) ** 2 for x, y in zip(xs, ys)) / len(xs)
    print(f"step {step:3d}  loss={loss:.5f}  w={w:.3f}  b={b:.3f}", flush=True)
    if metrics:
        with open(metrics, "a") as f:
            f.write(json.dumps({"step": step, "loss": round(loss, 6), "w": round(w, 4)}) + "\n")
    time.sleep(0.2)
print(f"训练完成：w={w:.3f}（真值 3.0），b={b:.3f}（真值 0.5）", flush=True)
