"""Checks a `tafl export` bundle's model.onnx with onnxruntime, a runtime independent of burn.

Usage: export_check.py BUNDLE CASES.json

CASES.json (written by tests/export.rs) holds encoded positions and burn's outputs for them:
{"shape": [B, planes, n, n], "planes": [...], "expected": {"policy_logits": [...], ...},
 "tolerance": 1e-4}. The script runs the ONNX checker, checks the graph's input and output
names and shapes against the bundle's manifest, runs the whole batch and then each position
alone (the batch axis is dynamic), and fails when any output differs from burn's by more than
the tolerance. It prints `max_abs_diff NAME VALUE` per output.

Where the manifest describes an int8 graph (`tafl export --int8`), that file is checked too: the
ONNX checker, the same outputs, and outputs close to burn's in probability (the win/draw/loss
probabilities within `int8_wdl_tolerance`, the policy's distribution over the whole index within
`int8_policy_tolerance` in total variation, on average over the positions). It prints `int8 ...`
lines.
"""

import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main():
    bundle, cases_path = sys.argv[1], sys.argv[2]
    path = os.path.join(bundle, "model.onnx")
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    with open(cases_path) as f:
        cases = json.load(f)

    onnx.checker.check_model(onnx.load(path), full_check=True)
    print(f"onnx checker: ok (onnx {onnx.__version__}, onnxruntime {ort.__version__})")

    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    declared_in = [(t["name"], t["shape"]) for t in manifest["onnx"]["inputs"]]
    declared_out = [(t["name"], t["shape"]) for t in manifest["onnx"]["outputs"]]
    actual_in = [(t.name, list(t.shape)) for t in session.get_inputs()]
    actual_out = [(t.name, list(t.shape)) for t in session.get_outputs()]
    assert actual_in == declared_in, f"inputs {actual_in}, manifest says {declared_in}"
    assert actual_out == declared_out, f"outputs {actual_out}, manifest says {declared_out}"

    x = np.array(cases["planes"], dtype=np.float32).reshape(cases["shape"])
    names = [name for name, _ in declared_out]
    expected = {
        name: np.array(cases["expected"][name], dtype=np.float32).reshape(x.shape[0], -1)
        for name in names
    }
    tolerance = cases["tolerance"]
    worst = 0.0
    batch = dict(zip(names, session.run(names, {"planes": x})))
    for name in names:
        got = batch[name]
        assert got.shape == expected[name].shape, f"{name}: shape {got.shape}, burn {expected[name].shape}"
        diff = float(np.max(np.abs(got - expected[name])))
        print(f"max_abs_diff {name} {diff:.3e}")
        worst = max(worst, diff)
    for i in range(x.shape[0]):
        single = dict(zip(names, session.run(names, {"planes": x[i : i + 1]})))
        for name in names:
            diff = float(np.max(np.abs(single[name][0] - expected[name][i])))
            worst = max(worst, diff)
    print(f"max_abs_diff all {worst:.3e}")
    if not worst <= tolerance:
        sys.exit(f"model.onnx differs from burn by {worst:.3e} > {tolerance:.0e}")
    if manifest.get("int8"):
        check_int8(bundle, manifest, x, names, expected, cases)


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def check_int8(bundle, manifest, x, names, expected, cases):
    path = os.path.join(bundle, manifest["int8"]["file"])
    onnx.checker.check_model(onnx.load(path), full_check=True)
    print("int8 onnx checker: ok")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    declared_out = [(t["name"], t["shape"]) for t in manifest["onnx"]["outputs"]]
    actual_out = [(t.name, list(t.shape)) for t in session.get_outputs()]
    assert actual_out == declared_out, f"int8 outputs {actual_out}, manifest says {declared_out}"
    got = dict(zip(names, session.run(names, {"planes": x})))
    wdl = float(np.max(np.abs(softmax(got["wdl_logits"]) - softmax(expected["wdl_logits"]))))
    # Mean over the positions: a position whose moves are nearly tied moves most.
    policy = float(np.mean(0.5 * np.abs(softmax(got["policy_logits"]) - softmax(expected["policy_logits"])).sum(axis=1)))
    same = float(np.mean(got["policy_logits"].argmax(axis=1) == expected["policy_logits"].argmax(axis=1)))
    print(f"int8 wdl_probability_max_diff {wdl:.4f} policy_total_variation_mean {policy:.4f} same_top_index {same:.3f}")
    if not wdl <= cases["int8_wdl_tolerance"]:
        sys.exit(f"model.int8.onnx: win/draw/loss probabilities differ by {wdl:.4f}")
    if not policy <= cases["int8_policy_tolerance"]:
        sys.exit(f"model.int8.onnx: policy differs by {policy:.4f} in total variation")


if __name__ == "__main__":
    main()
