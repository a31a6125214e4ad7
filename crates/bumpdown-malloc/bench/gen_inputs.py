#!/usr/bin/env python3
"""Benchmark inputs with fixed seeds: gen_inputs.py OUTDIR (skips files already there).

input.txt/check.txt: the FileCheck torture of seed 001, 500,000 lines of random printable
characters and one `CHECK: {{.+}}` per line. big.cpp: the standard library headers plus
15 functions instantiating distinct templates. big.json: 400,000 records (~60 MB).
"""
import json
import os
import random
import sys

out = sys.argv[1]


def write(name, produce):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            produce(f)
        os.rename(path + ".tmp", path)


def filecheck_input(f):
    r = random.Random(1)
    chars = [chr(c) for c in range(33, 127)]
    for _ in range(500_000):
        f.write("".join(r.choice(chars) for _ in range(r.randint(1, 80))) + "\n")


def filecheck_check(f):
    f.write("CHECK: {{.+}}\n" * 500_000)


def cpp(f):
    f.write("#include <bits/stdc++.h>\n")
    for i in range(15):
        f.write(f"""
template <int N> struct S{i} {{ std::map<std::string, std::vector<std::tuple<int, double, S{i}*>>> m; }};
inline std::size_t f{i}(const std::vector<std::pair<std::string, int>>& v) {{
    std::unordered_map<std::string, std::set<int>> u;
    for (auto& [k, x] : v) u[k].insert(x * {i});
    S{i}<{i}> s; s.m["a"].emplace_back({i}, {i}.5, nullptr);
    return std::accumulate(u.begin(), u.end(), std::size_t{{{i}}}, [](std::size_t a, auto& p) {{ return a + p.second.size(); }}) + s.m.size();
}}
""")


def big_json(f):
    r = random.Random(2)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    recs = [{"id": i, "name": "".join(r.choice(words) for _ in range(3)), "score": r.random(),
             "tags": [r.choice(words) for _ in range(r.randint(0, 6))],
             "pos": {"x": r.uniform(-1e3, 1e3), "y": r.uniform(-1e3, 1e3)}} for i in range(400_000)]
    json.dump(recs, f)


write("input.txt", filecheck_input)
write("check.txt", filecheck_check)
write("big.cpp", cpp)
write("big.json", big_json)
