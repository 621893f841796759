"""What every tapset generator does with its text: write it to OUT, or
with --check compare it with OUT and exit 1 if they differ (a ctest runs
each generator so)."""
import os
import sys


def write_or_check(argv, default_out, text, script):
    """argv: [--check] [OUT]. Returns the exit status."""
    check = "--check" in argv
    rest = [a for a in argv if a != "--check"]
    path = rest[0] if rest else default_out
    name = os.path.basename(script)
    if check:
        try:
            with open(path) as f:
                current = f.read()
        except OSError as e:
            print(f"{name}: cannot read {path}: {e.strerror}", file=sys.stderr)
            return 1
        if current != text:
            print(f"{name}: {path} is out of date; run tapsets/gen/{name}", file=sys.stderr)
            return 1
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0
