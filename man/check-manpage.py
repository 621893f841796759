#!/usr/bin/env python3
"""Checks the commands' man pages (run by ctest):

    man/check-manpage.py options SOURCE PAGE
    man/check-manpage.py render PAGE...

`options`: every option the command's getopt table in SOURCE accepts
(the short-option string of getopt()/getopt_long(), and the {"name",
*_argument, ...} rows of its long-option table) has an item (.TP tag) in
PAGE's OPTIONS section, written with an argument exactly when it takes
one; and every option that section documents is in the table, so the
page cannot describe an option the command has dropped.

`render`: groff formats each PAGE with every warning on (-ww) and prints
nothing on stderr. Exit 77 (skipped) when groff is not installed.

Exit status 1 with one line per problem.
"""
import re
import shutil
import subprocess
import sys

SHORT_STRING = re.compile(r'\bgetopt(?:_long)?\s*\([^;]*?"([^"]+)"')
LONG_ROW = re.compile(r'\{\s*"([A-Za-z0-9][\w-]*)"\s*,\s*(no|required|optional)_argument\b')


def table_options(source):
    """SOURCE's options -> {"-x": "required"|"optional"|"no"}."""
    text = open(source, encoding="utf-8").read()
    m = SHORT_STRING.search(text)
    if not m:
        sys.exit(f"{source}: no getopt() short-option string found")
    opts = {}
    letters = m.group(1).lstrip("+-")
    for i, c in enumerate(letters):
        if c == ":":
            continue
        colons = len(letters[i + 1:]) - len(letters[i + 1:].lstrip(":"))
        opts["-" + c] = ["no", "required", "optional"][min(colons, 2)]
    for name, arg in LONG_ROW.findall(text):
        opts["--" + name] = arg
    return opts


ROFF_ESCAPES = [(re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)"), ""), (re.compile(r"\\-"), "-"),
                (re.compile(r"\\[c&]"), ""), (re.compile(r"\\~"), " "),
                (re.compile(r"\\\(aq"), "'"), (re.compile(r"\\e"), "\\")]
ARG = re.compile(r'"((?:[^"]|"")*)"|(\S+)')


def roff_text(line):
    """A text or font-macro line (.B, .BI, .BR ...) as the words it shows."""
    if line.startswith("."):
        macro, _, rest = line[1:].partition(" ")
        args = [q.replace('""', '"') if q or not w else w for q, w in ARG.findall(rest)]
        # Two-letter font macros alternate fonts with no space between.
        line = ("" if len(macro) == 2 else " ").join(args)
    for pat, repl in ROFF_ESCAPES:
        line = pat.sub(lambda _, r=repl: r, line)
    return line


def page_options(page):
    """PAGE's OPTIONS items -> {"-x": the tag text after the option}."""
    lines = open(page, encoding="utf-8").read().splitlines()
    documented = {}
    in_options = False
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            in_options = line.split(None, 1)[1:] == ["OPTIONS"]
            continue
        if not in_options or not line.startswith(".TP") or i + 1 >= len(lines):
            continue
        tag = roff_text(lines[i + 1])
        # "-h, --help", "-r release|dir", "--privilege[=level]"
        for part in tag.split(","):
            m = re.match(r"\s*(--?[A-Za-z0-9][\w-]*)(.*)$", part)
            if m:
                documented[m.group(1)] = m.group(2)
    return documented


def check_options(source, page):
    accepted = table_options(source)
    documented = page_options(page)
    problems = []
    for opt, arg in sorted(accepted.items()):
        if opt not in documented:
            problems.append(f"{page}: option {opt} ({source}) has no item in OPTIONS")
            continue
        rest = documented[opt]
        shown = ("optional" if rest.startswith("[=") else
                 "required" if re.match(r"[ =]\S", rest) else
                 "no" if not rest.strip() else "unclear")
        if shown != arg:
            takes = {"no": "no argument", "required": "an argument",
                     "optional": "an optional argument ([=ARG])"}[arg]
            problems.append(f"{page}: option {opt} takes {takes} but its item shows '{opt}{rest}'")
    for opt in sorted(set(documented) - set(accepted)):
        problems.append(f"{page}: OPTIONS documents {opt}, which {source} does not accept")
    return problems


def check_render(pages):
    groff = shutil.which("groff")
    if not groff:
        print("groff is not installed")
        sys.exit(77)
    problems = []
    for page in pages:
        r = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", page], capture_output=True, text=True)
        if r.returncode or r.stderr:
            problems.append(f"{page}: groff exit {r.returncode}: {r.stderr.strip()}")
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "options":
        problems = check_options(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "render":
        problems = check_render(sys.argv[2:])
    else:
        sys.exit(__doc__)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
