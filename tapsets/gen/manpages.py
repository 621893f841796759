#!/usr/bin/env python3
"""Writes a man page for every tapset function and probe alias from the
kernel-doc comment before it:

    tapsets/gen/manpages.py TAPSET_DIR OUT_DIR

    /**
     * sfunction NAME - One-line summary
     * @arg: What the argument is
     *
     * Description: Longer text (paragraphs separated by blank lines).
     */
    function NAME:type (arg:type) ...

("probe NAME - ..." before "probe NAME = ..." likewise.) Pages go to
OUT_DIR/function::NAME.3stapx and OUT_DIR/probe::NAME.3stapx, one per
name (overloads share a page), plus OUT_DIR/tapset::FILE.3stapx listing
each file's entries. A function or probe alias whose name does not start with '_' (the
library's private helpers) without such a comment is an error: the script names each and exits 1, which fails the build.
"""
import os
import re
import sys

DECL = re.compile(r"^(?:private\s+)?function\s+(\w+)\s*(:\s*\w+)?\s*\(([^)]*)\)|^probe\s+([\w.*]+(?:\s*,\s*[\w.*]+)*)\s*\+?=")
DOC_HEAD = re.compile(r"^\s*(?:sfunction|function|probe)\s+([\w.]+)\s*-\s*(.*)$")


def parse_doc(lines):
    """The comment's lines (without /** */ and leading ' * ') ->
    (name, summary, [(arg, text)], [paragraphs])."""
    name = summary = None
    args, paras, cur = [], [], []
    in_desc = False
    for raw in lines:
        line = raw.rstrip()
        if name is None:
            m = DOC_HEAD.match(line)
            if m:
                name, summary = m.group(1), m.group(2).strip()
            continue
        m = re.match(r"^@(\w+):\s*(.*)$", line)
        if m and not in_desc:
            args.append([m.group(1), m.group(2)])
            continue
        if not line.strip():
            if cur:
                paras.append(" ".join(cur))
                cur = []
            continue
        m = re.match(r"^(\w[\w ]*):\s*(.*)$", line)
        if m and m.group(1) in ("Description", "Context", "Note"):
            in_desc = True
            if cur:
                paras.append(" ".join(cur))
                cur = []
            if m.group(2):
                cur.append(m.group(2))
            continue
        if args and not in_desc and not cur and raw.startswith("  "):
            args[-1][1] += " " + line.strip()
            continue
        in_desc = True
        cur.append(line.strip())
    if cur:
        paras.append(" ".join(cur))
    return name, summary, args, paras


def scan(path):
    """(entries, missing): entries are dicts for each documented
    function or alias; missing are 'file:line: kind NAME' strings."""
    with open(path) as f:
        text = f.read().split("\n")
    entries, missing = [], []
    doc = None          # the last comment, until a declaration uses it
    i = 0
    while i < len(text):
        line = text[i]
        if line.startswith("/**"):
            body = []
            i += 1
            while i < len(text) and "*/" not in text[i]:
                body.append(re.sub(r"^\s*\*\s?", "", text[i]))
                i += 1
            doc = parse_doc(body)
            i += 1
            continue
        m = DECL.match(line)
        if m:
            if m.group(1):
                kind, names = "function", [m.group(1)]
                rtype = (m.group(2) or "").replace(" ", "").lstrip(":")
                params = ", ".join(p.strip().replace(" ", "") for p in m.group(3).split(",") if p.strip())
                synopsis = f"{names[0]}:{rtype or 'unknown'}({params})"
            else:
                kind = "probe"
                names = [n.strip() for n in m.group(4).split(",")]
                synopsis = None
            for n in names:
                # Private helpers ('_' names) need no page; an alias of
                # theirs gets one only if it is documented.
                if n.startswith("_") and (kind == "function" or not doc or doc[0] != n):
                    continue
                if not doc or doc[0] != n:
                    missing.append(f"{path}:{i + 1}: {kind} {n} has no kernel-doc comment "
                                   f"('/**' then ' * {'sfunction' if kind == 'function' else 'probe'} {n} - ...')")
                    continue
                entries.append({"kind": kind, "name": n, "summary": doc[1], "args": doc[2],
                                "paras": doc[3], "synopsis": synopsis,
                                "file": os.path.splitext(os.path.basename(path))[0]})
            doc = None
        i += 1
    return entries, missing


def esc(s):
    s = s.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", s.replace("-", "\\-"))


def page(title, entries, section="3stapx"):
    e = entries[0]
    out = [f'.TH "{title.upper()}" {section} "" "stapx" "stapx Tapset Reference"',
           ".SH NAME", f"{esc(title)} \\- {esc(e['summary'])}", ".SH SYNOPSIS", ".nf"]
    for x in entries:
        out.append("    " + esc(x["synopsis"] or x["name"]))
    out.append(".fi")
    args = []
    for x in entries:
        for a in x["args"]:
            if a[0] not in [b[0] for b in args]:
                args.append(a)
    out.append(".SH " + ("ARGUMENTS" if e["kind"] == "function" else "VALUES"))
    if not args:
        out.append("None")
    for a, t in args:
        out += [".TP", f"\\fI{esc(a)}\\fR", esc(t)]
    paras = [p for x in entries for p in x["paras"]]
    if paras:
        out.append(".SH DESCRIPTION")
        for i, p in enumerate(paras):
            if i:
                out.append(".PP")
            out.append(esc(p))
    out += [".SH SEE ALSO", f"\\fBtapset::{esc(e['file'])}\\fR(3stapx), \\fBstapx\\fR(1)", ""]
    return "\n".join(out)


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src, out = argv
    all_entries, all_missing = [], []
    for fn in sorted(os.listdir(src)):
        if fn.endswith(".stp"):
            e, m = scan(os.path.join(src, fn))
            all_entries += e
            all_missing += m
    if all_missing:
        for m in all_missing:
            print(f"manpages: {m}", file=sys.stderr)
        print(f"manpages: {len(all_missing)} undocumented tapset entries", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):  # pages of entries since removed
        if old.endswith(".3stapx"):
            os.unlink(os.path.join(out, old))
    pages = {}
    for e in all_entries:
        pages.setdefault(f"{e['kind']}::{e['name']}", []).append(e)
    files = {}
    for title, es in pages.items():
        with open(os.path.join(out, title + ".3stapx"), "w") as f:
            f.write(page(title, es))
        files.setdefault(es[0]["file"], []).append((title, es[0]["summary"]))
    for name, items in files.items():
        lines = [f'.TH "TAPSET::{name.upper()}" 3stapx "" "stapx" "stapx Tapset Reference"',
                 ".SH NAME", f"tapset::{esc(name)} \\- the functions and probes of {esc(name)}.stp",
                 ".SH DESCRIPTION"]
        for title, summary in sorted(items):
            lines += [".TP", f"\\fB{esc(title)}\\fR(3stapx)", esc(summary)]
        lines.append("")
        with open(os.path.join(out, f"tapset::{name}.3stapx"), "w") as f:
            f.write("\n".join(lines))
    print(f"manpages: {len(pages)} pages from {len(files)} tapset files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
