#!/usr/bin/env python3
"""Import circles between the top-level modules of each crate, and the largest source files.

    scripts/module-cycles.py [--fail-on-cycles] [CRATE_SRC_DIR ...]

Default dirs: engine/src nn/src models/src trainer/src lab/src src (relative to the repository
root, the folder above this script). For each dir, the top-level modules are the `mod NAME;` of its crate
root (lib.rs, else main.rs): module NAME is the file NAME.rs, or NAME/mod.rs, with everything
under the folder NAME/. A reference to another top-level module X from a file of module Y is an
edge Y -> X; the script prints the strongly connected components of more than one module (the
circles of imports, each with one place that makes each of its edges), then the ten largest .rs
files of all the dirs with their line counts.

What counts as a reference to X, after comments, strings and char literals are blanked out:
  - `crate::X` anywhere (`use crate::X::..`, `pub(crate) use crate::{X, ..}`, `crate::X::f()`,
    `$crate::X` in macros);
  - `crate::NAME` or `crate::{NAME, ..}` where the crate root re-exports NAME from X
    (`pub use X::NAME;`, `pub use X::{NAME as OTHER};`, or `pub use X::*` and X defines a
    `pub` item NAME);
  - `super::X` from a file directly inside the module (`Y.rs`, `Y/mod.rs`), and
    `super::super::X` from one a level deeper, and so on: paths that climb to the crate root.
Items defined in the crate root itself, and the root's own code, are not in the graph: every
module is declared there, so the root would close a circle with anything that uses it.
Exit status: 0, or with --fail-on-cycles, 1 when any crate has a circle. Python 3 stdlib only.
"""

import argparse
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def blank_code(text):
    """`text` with comments, string, byte-string, raw-string and char literals replaced by spaces
    (newlines kept, so that line numbers stay right). Rough, but enough for paths: a `crate::`
    inside a doc comment or a string is not a reference."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (c in "rb") and re.match(r'(br|r)#*"', text[i:i + 260]) and not _ident_before(text, i):
            m = re.match(r'(br|r)(#*)"', text[i:])
            close = '"' + m.group(2)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (c == "b" and text.startswith('b"', i) and not _ident_before(text, i)):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static): only the
            # literal closes with a quote.
            if text.startswith("\\", i + 1):
                j = text.find("'", i + 2)
                j = n if j < 0 else j + 1
            elif i + 2 < n and text[i + 2] == "'":
                j = i + 3
            else:
                out.append(c)
                i += 1
                continue
            out.append(blank(text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _ident_before(text, i):
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def use_tree_paths(tree):
    """The paths a `use` tree names, as (segments, last segment): `a::{b, c::d, f::*, self}` gives
    (['a','b'],'b'), (['a','c','d'],'d'), (['a','f','*'],'*'), (['a'],'a'). Aliases (`x as y`)
    are split off beforehand by split_use."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def parse(s, prefix):
        # s: one tree at depth 0, e.g. `a::b::{c,d}` or `x as y`
        parts = []
        depth, start = 0, 0
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for p in parts:
            if not p:
                continue
            brace = p.find("{")
            if brace >= 0:
                head = p[:brace].rstrip(":")
                inner = p[brace + 1:p.rfind("}")]
                segs = [x for x in head.split("::") if x]
                parse(inner, prefix + segs)
            else:
                segs = [x for x in p.split("::") if x]
                full = prefix + segs
                if full and full[-1] == "self":
                    full = full[:-1]
                if full:
                    out.append((full, full[-1]))

    parse(tree, [])
    return out


def use_statements(code):
    """(line, tree text) of every `use` statement of blanked code, `as` kept with its spaces."""
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        line = code.count("\n", 0, m.start()) + 1
        yield line, m.group(1)


def split_use(tree):
    """use_tree_paths, with `a as b` handled before whitespace goes."""
    aliases = {}

    def repl(m):
        key = "__alias%d__" % len(aliases)
        aliases[key] = m.group(2)
        return m.group(1) + key

    tree = re.sub(r"(" + IDENT + r")\s+as\s+(" + IDENT + r")", repl, tree)
    out = []
    for segs, _ in use_tree_paths(tree):
        last = segs[-1]
        m = re.match(r"^(.*?)(__alias\d+__)$", last)
        if m:
            segs = segs[:-1] + ([m.group(1)] if m.group(1) != "self" else [])
            out.append((segs, aliases[m.group(2)]))
        else:
            out.append((segs, last))
    return out


class Crate:
    def __init__(self, src):
        self.src = src
        self.root = None
        for name in ("lib.rs", "main.rs"):
            if os.path.isfile(os.path.join(src, name)):
                self.root = os.path.join(src, name)
                break
        self.modules = {}  # name -> list of files
        self.reexports = {}  # name visible at the root -> module it comes from
        self._find_modules()

    def _find_modules(self):
        names = []
        if self.root:
            code = blank_code(read(self.root))
            names = re.findall(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code)
        else:
            for entry in sorted(os.listdir(self.src)):
                p = os.path.join(self.src, entry)
                if entry.endswith(".rs"):
                    names.append(entry[:-3])
                elif os.path.isdir(p):
                    names.append(entry)
        for name in dict.fromkeys(names):
            files = []
            f = os.path.join(self.src, name + ".rs")
            if os.path.isfile(f):
                files.append(f)
            d = os.path.join(self.src, name)
            if os.path.isdir(d):
                for dirpath, dirnames, filenames in os.walk(d):
                    dirnames.sort()
                    for fn in sorted(filenames):
                        if fn.endswith(".rs"):
                            files.append(os.path.join(dirpath, fn))
            self.modules[name] = files
        if self.root:
            self._find_reexports()

    def _find_reexports(self):
        code = blank_code(read(self.root))
        for _, tree in use_statements(code):
            for segs, visible in split_use(tree):
                if segs and segs[0] in ("crate", "self"):
                    segs = segs[1:]
                if len(segs) < 2 or segs[0] not in self.modules:
                    continue
                module = segs[0]
                if visible == "*":
                    for item in self.pub_items(module):
                        self.reexports.setdefault(item, module)
                else:
                    self.reexports[visible] = module

    def pub_items(self, module):
        items = set()
        for f in self.modules[module]:
            code = blank_code(read(f))
            items.update(
                re.findall(
                    r"\bpub\s+(?:unsafe\s+|const\s+|async\s+)*(?:fn|struct|enum|trait|type|const|static|mod|union)\s+("
                    + IDENT
                    + r")",
                    code,
                )
            )
            for _, tree in use_statements(code):
                for _, visible in split_use(tree):
                    items.add(visible)
        return items

    def depth(self, path):
        """How many `super::` climb from this file's module to the crate root."""
        rel = os.path.relpath(path, self.src).split(os.sep)
        d = len(rel)  # `y.rs` -> 1, `y/z.rs` -> 2
        if rel[-1] == "mod.rs":
            d -= 1
        return d

    def edges(self):
        """{(from, to): (file, line)}, the first place found for each edge."""
        found = {}
        for module, files in self.modules.items():
            for f in files:
                code = blank_code(read(f))
                for to, line in self.references(f, code):
                    if to != module and to in self.modules:
                        found.setdefault((module, to), (f, line))
        return found

    def references(self, f, code):
        def line_of(pos):
            return code.count("\n", 0, pos) + 1

        for m in re.finditer(r"\bcrate\s*::\s*(" + IDENT + r"|\{)", code):
            if m.group(1) == "{":
                end = matching_brace(code, m.end() - 1)
                for segs, _ in split_use(code[m.end() - 1:end + 1]):
                    yield self.resolve(segs[0]), line_of(m.start())
            else:
                yield self.resolve(m.group(1)), line_of(m.start())
        d = self.depth(f)
        supers = r"\bsuper\s*::\s*" * d
        for m in re.finditer(r"(?<!::)(?<!\w)" + supers + r"(" + IDENT + r"|\{)", code):
            # Exactly d climbs: one more `super::` before would go past the root.
            if m.group(1) == "super":
                continue
            if m.group(1) == "{":
                end = matching_brace(code, m.end() - 1)
                for segs, _ in split_use(code[m.end() - 1:end + 1]):
                    yield self.resolve(segs[0]), line_of(m.start())
            else:
                yield self.resolve(m.group(1)), line_of(m.start())

    def resolve(self, name):
        if name in self.modules:
            return name
        return self.reexports.get(name)


def matching_brace(code, open_pos):
    depth = 0
    for k in range(open_pos, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative; components in a stable order."""
    succ = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            for k in range(i, len(succ[v])):
                w = succ[v][k]
                if w not in index:
                    work.append((v, k + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comps


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", help="crate source folders (default: the workspace's)")
    ap.add_argument("--fail-on-cycles", action="store_true", help="exit 1 when there is a circle")
    args = ap.parse_args()
    dirs = args.dirs or [os.path.join(repo, d) for d in ("engine/src", "nn/src", "models/src", "trainer/src", "lab/src", "src")]
    any_cycle = False
    all_files = []
    for src in dirs:
        if not os.path.isdir(src):
            print(f"{src}: not a folder", file=sys.stderr)
            return 2
        crate = Crate(src)
        edges = crate.edges()
        comps = [c for c in strongly_connected(list(crate.modules), edges) if len(c) > 1]
        name = os.path.relpath(src, repo) if src.startswith(repo) else src
        print(f"{name}: {len(crate.modules)} modules, {len(edges)} edges, {len(comps)} circles")
        for comp in comps:
            any_cycle = True
            print("  circle: " + ", ".join(comp))
            members = set(comp)
            for (a, b), (f, line) in sorted(edges.items()):
                if a in members and b in members:
                    print(f"    {a} -> {b}  ({os.path.relpath(f, repo)}:{line})")
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            for fn in filenames:
                if fn.endswith(".rs"):
                    p = os.path.join(dirpath, fn)
                    all_files.append((read(p).count("\n"), os.path.relpath(p, repo)))
    print("largest files:")
    for lines, path in sorted(all_files, key=lambda t: (-t[0], t[1]))[:10]:
        print(f"  {lines:6} {path}")
    return 1 if (any_cycle and args.fail_on_cycles) else 0


if __name__ == "__main__":
    sys.exit(main())
