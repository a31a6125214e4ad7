#!/usr/bin/env python3
"""Benchmark inputs with fixed seeds: gen_inputs.py OUTDIR [FILE...] (the files named, or
all of them; skips files already there).

input.txt/check.txt: the FileCheck torture of seed 001, 500,000 lines of random printable
characters and one `CHECK: {{.+}}` per line. big.cpp: the standard library headers plus
15 functions instantiating distinct templates. big.json: 400,000 records (~60 MB).
big.c: 250 C functions of loops, switches and arithmetic, for `gcc -O2`. lines.txt: 50 MB
of words for `sort`. batch.sql: a table of 200,000 rows inserted in transactions, an
index, and grouping, joining and sorting queries. repo.fi: a `git fast-import` stream of
1,500 commits editing 40 files, each commit changing a few lines of a few files.
"""
import json
import os
import random
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


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


WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut "
         "labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco").split()


def big_c(f):
    r = random.Random(3)
    f.write("#include <stddef.h>\n")
    for i in range(250):
        a, b, c = r.randint(2, 97), r.randint(3, 89), r.randint(1, 31)
        f.write(f"""
long g{i}(const long *v, size_t n, long k) {{
    long acc = {a};
    for (size_t j = 0; j < n; j++) {{
        switch ((v[j] ^ k) & 7) {{
        case 0: acc += v[j] * {b}; break;
        case 1: acc ^= v[j] << {c % 13}; break;
        case 2: acc -= (v[j] >> 2) + k; break;
        case 3: acc = acc * {a} + j; break;
        case 4: if (v[j] > acc) acc = v[j] - {c}; break;
        default: acc += (long)j * (k | {b});
        }}
        for (size_t m = j; m < n && m < j + {c}; m++) acc += v[m] % {b};
    }}
    return acc + {'g%d(v, n / 2, k + 1)' % (i - 1) if i else '0'};
}}
""")


def lines(f):
    r = random.Random(4)
    written = 0
    while written < 50_000_000:
        line = " ".join(r.choice(WORDS) for _ in range(r.randint(1, 12))) + f" {r.randrange(10**9)}\n"
        f.write(line)
        written += len(line)


def batch_sql(f):
    r = random.Random(5)
    f.write("DROP TABLE IF EXISTS item; DROP TABLE IF EXISTS tag;\n")
    f.write("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, score REAL, grp INTEGER);\n")
    f.write("CREATE TABLE tag(item INTEGER, word TEXT);\n")
    for start in range(0, 200_000, 10_000):
        f.write("BEGIN;\n")
        for i in range(start, start + 10_000):
            name = "".join(r.choice(WORDS) for _ in range(2))
            f.write(f"INSERT INTO item VALUES({i},'{name}',{r.random():.6f},{r.randrange(500)});\n")
            if i % 3 == 0:
                f.write(f"INSERT INTO tag VALUES({i},'{r.choice(WORDS)}');\n")
        f.write("COMMIT;\n")
    f.write("CREATE INDEX item_grp ON item(grp);\n")
    f.write("SELECT grp, count(*), avg(score) FROM item GROUP BY grp ORDER BY 3 DESC LIMIT 5;\n")
    f.write("SELECT t.word, count(*) FROM tag t JOIN item i ON i.id = t.item WHERE i.score > 0.5 GROUP BY t.word ORDER BY 2 DESC;\n")
    f.write("SELECT name, score FROM item ORDER BY name, score LIMIT 3;\n")
    f.write("SELECT count(DISTINCT name) FROM item;\n")


def repo_fast_import(f):
    r = random.Random(6)
    files = {f"src/file{k}.txt": [" ".join(r.choice(WORDS) for _ in range(8)) for _ in range(200)] for k in range(40)}
    for n in range(1, 1501):
        changed = r.sample(sorted(files), 3)
        for name in changed:
            body = files[name]
            for _ in range(r.randint(1, 6)):
                body[r.randrange(len(body))] = " ".join(r.choice(WORDS) for _ in range(8))
        message = f"commit {n}: edit {', '.join(changed)}\n"
        f.write(f"commit refs/heads/main\nmark :{n}\n")
        f.write(f"committer Bench <bench@example.invalid> {1_700_000_000 + 60 * n} +0000\n")
        f.write(f"data {len(message)}\n{message}")
        if n > 1:
            f.write(f"from :{n - 1}\n")
        for name in (sorted(files) if n == 1 else changed):
            data = "\n".join(files[name]) + "\n"
            f.write(f"M 100644 inline {name}\ndata {len(data.encode())}\n{data}")
        f.write("\n")


INPUTS = {
    "input.txt": filecheck_input,
    "check.txt": filecheck_check,
    "big.cpp": cpp,
    "big.json": big_json,
    "big.c": big_c,
    "lines.txt": lines,
    "batch.sql": batch_sql,
    "repo.fi": repo_fast_import,
}
for name in sys.argv[2:] or INPUTS:
    write(name, INPUTS[name])
