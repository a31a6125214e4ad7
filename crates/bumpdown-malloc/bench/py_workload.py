"""A python3 workload for the real-programs table (run with PYTHONMALLOC=malloc, so
every object comes from the C allocator under test): build a few hundred thousand small
dicts, lists and strings, index and sort them, round-trip them through json, and print
a digest of the results, which must be the same under every allocator."""
import hashlib
import json
import random

r = random.Random(7)
words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()
records = [
    {"id": i, "name": " ".join(r.choice(words) for _ in range(3)), "score": r.random(),
     "tags": [r.choice(words) for _ in range(r.randint(0, 5))]}
    for i in range(150_000)
]
by_tag = {}
for rec in records:
    for tag in rec["tags"]:
        by_tag.setdefault(tag, []).append(rec["id"])
records.sort(key=lambda rec: (rec["name"], -rec["score"]))
text = json.dumps(records)
back = json.loads(text)
digest = hashlib.sha256(text.encode()).hexdigest()
print(len(back), {k: len(v) for k, v in sorted(by_tag.items())}, digest)
