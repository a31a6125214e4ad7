#!/usr/bin/env python3
"""List every public item of a bumpalo release, for docs/MIGRATING.md's audit.

    scripts/bumpalo-api.py [VERSION] > bumpalo-api.txt     (VERSION: 3.20.4 by default)

How: a throwaway crate in a temporary directory depends on `bumpalo = "=VERSION"` with
every feature; `cargo +nightly rustdoc -p bumpalo` writes rustdoc's JSON of it, twice
(bumpalo implements allocator-api2's `Allocator` only when `allocator_api` is off, so one
run has every feature and one every feature but `allocator_api`), and this script walks
both from the crate root, following re-exports, and prints the union, one item a line:

    mod       bumpalo::collections
    struct    bumpalo::Bump<const MIN_ALIGN: usize = 1>
    fn        bumpalo::Bump::alloc<T>(&self, val: T) -> &mut T
    impl      Bump<MIN_ALIGN>: Default
    impl      IntoIter<'bump, T>: Send where T: Send
    macro     bumpalo::vec!

Trait impls are the non-blanket ones the crate writes, plus the auto traits `Send`,
`Sync` and `Unpin` as rustdoc works them out (`!Sync` where the type is not), each with
its bounds as a where clause; an item reached by a second path is a `use` line. Items
behind `#[doc(hidden)]` (bumpalo's `core_alloc` re-export of `alloc`) are not listed:
rustdoc leaves them out. Needs a nightly toolchain (rustdoc's JSON output is unstable) and the
crate in cargo's registry or reachable; the JSON format this was written for is version
57, and the script stops on another.
"""

import json
import os
import subprocess
import sys
import tempfile

FEATURES = ["collections", "boxed", "std", "serde", "allocator-api2", "allocator_api"]
AUTO_TRAITS = {"Send", "Sync", "Unpin"}
FORMAT_VERSIONS = {57}


def rustdoc_json(version, features, workdir):
    """Write a probe crate depending on bumpalo with `features`; return rustdoc's JSON."""
    name = "probe-" + "-".join(f.replace("_", "-") for f in features)
    crate = os.path.join(workdir, name)
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write(
            '[package]\nname = "bumpalo-api-probe"\nversion = "0.0.0"\nedition = "2021"\n'
            "publish = false\n[workspace]\n[dependencies]\n"
            f'bumpalo = {{ version = "={version}", features = {json.dumps(features)} }}\n'
        )
    with open(os.path.join(crate, "src", "lib.rs"), "w") as f:
        f.write("")
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(crate, "target"))
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", "bumpalo", "--",
         "-Zunstable-options", "--output-format", "json"],
        cwd=crate, env=env, check=True,
    )
    with open(os.path.join(crate, "target", "doc", "bumpalo.json")) as f:
        doc = json.load(f)
    if doc["format_version"] not in FORMAT_VERSIONS:
        sys.exit(f"rustdoc JSON format {doc['format_version']}: this script reads "
                 f"{sorted(FORMAT_VERSIONS)}; check ty() and generics() against it")
    return doc


# The document being rendered: its `paths` name external items (see `name`).
DOC = {}


def iname(path, id_):
    """An item's name as a user reads it: the last segment, but the whole path for an
    item of another crate whose last segment is also a local type's (std's `String`
    beside bumpalo's), or whose crate is not the standard library's (allocator-api2's
    `Allocator` beside core's)."""
    last = path.split("::")[-1]
    info = DOC["paths"].get(str(id_))
    if info is None or info["crate_id"] == 0:
        return last
    full = info["path"]
    if full[0] not in ("core", "alloc", "std") or last in DOC["local_names"]:
        return "::".join(full)
    return last


def ty(t):
    """A type from rustdoc's JSON, written as Rust."""
    if t is None:
        return "()"
    (kind, v), = t.items()
    if kind == "resolved_path":
        return iname(v["path"], v["id"]) + args(v.get("args"))
    if kind == "generic":
        return v
    if kind == "primitive":
        return v
    if kind == "borrowed_ref":
        lt = v["lifetime"] + " " if v["lifetime"] else ""
        return "&" + lt + ("mut " if v["is_mutable"] else "") + ty(v["type"])
    if kind == "raw_pointer":
        return "*" + ("mut " if v["is_mutable"] else "const ") + ty(v["type"])
    if kind == "slice":
        return "[" + ty(v) + "]"
    if kind == "array":
        return "[" + ty(v["type"]) + "; " + v["len"] + "]"
    if kind == "tuple":
        return "(" + ", ".join(ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if kind == "impl_trait":
        return "impl " + " + ".join(bound(b) for b in v)
    if kind == "dyn_trait":
        parts = [poly(p) for p in v["traits"]]
        if v.get("lifetime"):
            parts.append(v["lifetime"])
        return "dyn " + " + ".join(parts)
    if kind == "qualified_path":
        trait = v.get("trait")
        if trait is None:
            return ty(v["self_type"]) + "::" + v["name"]
        tname = iname(trait["path"], trait["id"]) or DOC["paths"].get(str(trait["id"]), {}).get("path", ["?"])[-1]
        return f"<{ty(v['self_type'])} as {tname}{args(trait.get('args'))}>::{v['name']}"
    if kind == "function_pointer":
        sig = v["sig"]
        return "fn(" + ", ".join(ty(x) for _, x in sig["inputs"]) + ")" + ret(sig["output"])
    if kind == "infer":
        return "_"
    return f"?{kind}"


def args(a):
    if not a:
        return ""
    if "angle_bracketed" in a:
        out = []
        for x in a["angle_bracketed"]["args"]:
            (k, v), = x.items()
            if k == "lifetime":
                out.append(v)
            elif k == "type":
                out.append(ty(v))
            elif k == "const":
                out.append(v["expr"])
            else:
                out.append("_")
        for c in a["angle_bracketed"].get("constraints", []):
            b = c["binding"]
            out.append(c["name"] + (" = " + ty(b["equality"]["type"]) if "equality" in b
                                    else ": " + " + ".join(bound(x) for x in b["constraint"])))
        return "<" + ", ".join(out) + ">" if out else ""
    if "parenthesized" in a:
        p = a["parenthesized"]
        return "(" + ", ".join(ty(x) for x in p["inputs"]) + ")" + ret(p["output"])
    return ""


def ret(t):
    return "" if t is None else " -> " + ty(t)


def poly(p):
    return iname(p["trait"]["path"], p["trait"]["id"]) + args(p["trait"].get("args"))


def bound(b):
    (k, v), = b.items()
    if k == "trait_bound":
        m = {"maybe": "?", "maybe_const": "~const "}.get(v["modifier"], "")
        return m + iname(v["trait"]["path"], v["trait"]["id"]) + args(v["trait"].get("args"))
    if k == "outlives":
        return v
    return "_"


def generics(g, with_bounds=True):
    out = []
    for p in g["params"]:
        (k, v), = p["kind"].items()
        if k == "lifetime":
            out.append(p["name"])
        elif k == "type":
            if v.get("is_synthetic"):
                continue
            b = " + ".join(bound(x) for x in v["bounds"])
            out.append(p["name"] + (": " + b if b and with_bounds else ""))
        elif k == "const":
            d = " = " + v["default"] if v.get("default") else ""
            out.append(f"const {p['name']}: {ty(v['type'])}{d}")
    return "<" + ", ".join(out) + ">" if out else ""


def bounds_of(g):
    """The bounds an impl puts on its parameters, as a where clause ("" for none)."""
    out = []
    for p in g["params"]:
        (k, v), = p["kind"].items()
        if k == "type" and v["bounds"] and not v.get("is_synthetic"):
            out.append(p["name"] + ": " + " + ".join(bound(b) for b in v["bounds"]))
        elif k == "lifetime" and v.get("outlives"):
            out.append(p["name"] + ": " + " + ".join(v["outlives"]))
    for w in g["where_predicates"]:
        (k, v), = w.items()
        if k == "bound_predicate" and v["bounds"]:
            out.append(ty(v["type"]) + ": " + " + ".join(bound(b) for b in v["bounds"]))
        elif k == "lifetime_predicate":
            out.append(v["lifetime"] + ": " + " + ".join(v["outlives"]))
    return " where " + ", ".join(out) if out else ""


def signature(name, f):
    sig = f["sig"]
    params = []
    for pname, t in sig["inputs"]:
        if pname == "self":
            params.append({"Self": "self", "&Self": "&self", "&mut Self": "&mut self"}.get(ty(t), "self: " + ty(t)))
        else:
            params.append(f"{pname}: {ty(t)}")
    head = f["header"]
    q = ("const " if head["is_const"] else "") + ("unsafe " if head["is_unsafe"] else "")
    return f"{q}{name.lstrip(':')}{generics(f['generics'], False)}({', '.join(params)}){ret(sig['output'])}"


def walk(doc):
    """Yield (kind, text) for every public item reachable from the crate root."""
    ix = doc["index"]
    DOC["paths"] = doc["paths"]
    DOC["local_names"] = {p["path"][-1] for p in doc["paths"].values() if p["crate_id"] == 0}
    first = {}  # item id -> the path it was first listed under

    def item(i):
        return ix.get(str(i))

    def impl_lines(owner, impl_ids):
        for iid in impl_ids:
            it = item(iid)
            if it is None:
                continue
            im = it["inner"]["impl"]
            if im["blanket_impl"] is not None:
                continue
            if im["trait"] is None:
                for mid in im["items"]:
                    m = item(mid)
                    if m is None or m["visibility"] != "public":
                        continue
                    (k, v), = m["inner"].items()
                    if k == "function":
                        yield "fn", signature(f"{owner}::{m['name']}", v)
                    elif k == "assoc_const":
                        yield "const", f"{owner}::{m['name']}"
                continue
            trait = iname(im["trait"]["path"], im["trait"]["id"]) + args(im["trait"].get("args"))
            if trait == "StructuralPartialEq":  # derive(PartialEq)'s unstable marker
                continue
            if im["is_synthetic"] and trait not in AUTO_TRAITS:
                continue
            neg = "!" if im["is_negative"] else ""
            yield "impl", f"{ty(im['for'])}: {neg}{trait}{bounds_of(im['generics'])}"

    def visit(i, prefix, name=None):
        it = item(i)
        if it is None:
            return
        (k, v), = it["inner"].items()
        name = name or it["name"]
        path = f"{prefix}::{name}"
        if i in first:
            if k != "use":
                yield "use", f"{path.lstrip(':')} = {first[i].lstrip(':')}"
            return
        first[i] = path
        if k == "module":
            yield "mod", path
            for c in v["items"]:
                yield from visit(c, path)
        elif k == "use":
            # A re-export: the item is listed under the first public path users can
            # write, and any later path to it as a `use` line.
            if v["id"] is not None:
                yield from visit(v["id"], prefix, v["name"])
        elif k in ("struct", "enum", "union"):
            yield k, path + generics(v["generics"])
            if k == "enum":
                for var in v["variants"]:
                    yield "variant", f"{path}::{item(var)['name']}"
            if k == "struct" and "plain" in v["kind"]:
                for fid in v["kind"]["plain"]["fields"]:
                    f = item(fid)
                    if f and f["visibility"] == "public":
                        yield "field", f"{path}.{f['name']}"
            yield from impl_lines(path, v["impls"])
        elif k == "trait":
            yield "trait", path + generics(v["generics"])
            for mid in v["items"]:
                m = item(mid)
                (mk, mv), = m["inner"].items()
                if mk == "function":
                    yield "fn", signature(f"{path}::{m['name']}", mv)
                elif mk == "assoc_type":
                    yield "type", f"{path}::{m['name']}"
                elif mk == "assoc_const":
                    yield "const", f"{path}::{m['name']}"
            for iid in v["implementations"]:
                im = item(iid)["inner"]["impl"]
                if im["blanket_impl"] is None:
                    yield "impl", f"{ty(im['for'])}: {name}{args(im['trait'].get('args'))}{bounds_of(im['generics'])}"
        elif k == "function":
            yield "fn", signature(f"{prefix}::{name}", v)
        elif k == "macro":
            yield "macro", f"{prefix}::{name}!"
        elif k == "type_alias":
            yield "type", path
        elif k == "constant":
            yield "const", path
        elif k == "static":
            yield "static", path

    yield from visit(doc["root"], "")


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else "3.20.4"
    lines = []
    with tempfile.TemporaryDirectory(prefix="bumpalo-api.") as work:
        for feats in (FEATURES, [f for f in FEATURES if f != "allocator_api"]):
            for kind, text in walk(rustdoc_json(version, feats, work)):
                line = f"{kind:<8}  {text.lstrip(':')}"
                if line not in lines:
                    lines.append(line)
    print(f"# bumpalo {version}, public API ({len(lines)} items), from scripts/bumpalo-api.py")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
