#!/usr/bin/env python3
"""Checks that the source folders use each other only in the order of docs/DESIGN.md's layers:
public facades (src/api) -> retry layer (src/retry, src/dlq, src/config) -> client core
(src/client) -> backends (src/pulsar, src/embedded, src/admin) -> protocol (src/protocol) ->
common (src/common). A folder may include its own headers, the public value headers
(include/reconsume/*.hpp other than the handle headers) and what its rule below allows.

Handle headers (client.hpp, consumer.hpp, producer.hpp, reader.hpp, admin.hpp, dead_letters.hpp)
carry whole handle classes and Asio's completion machinery; only the facades and the layers built
on the public API (src/dlq) include them, and no value header includes one.

Usage: scripts/check-layers.py [repo root]. Exits 1 naming every include that breaks a rule."""
import pathlib
import re
import sys

HANDLE_HEADERS = {"client.hpp", "consumer.hpp", "producer.hpp", "reader.hpp", "admin.hpp",
                  "dead_letters.hpp"}
# What each folder of src/ may include besides itself, common/ and the public value headers:
# a folder name (all of it) or one header of a folder (a seam).
ALLOWED = {
    "common": set(),
    "protocol": set(),
    "pulsar": {"protocol", "client/backend.hpp"},
    "embedded": {"client/backend.hpp", "client/admin_backend.hpp", "protocol/wire_size.hpp"},
    "admin": {"client/admin_backend.hpp"},
    "client": {"embedded/embedded_backend.hpp", "pulsar/pulsar_backend.hpp"},
    "config": set(),
    "retry": {"client"},
    "dlq": {"retry/property_keys.hpp", "retry/routing.hpp", "handles"},
    "api": {"*"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def allowed(folder, target):
    rule = ALLOWED[folder]
    if "*" in rule:
        return True
    if target.startswith("reconsume/"):
        name = target[len("reconsume/"):]
        return name not in HANDLE_HEADERS or "handles" in rule
    top = target.split("/", 1)[0]
    if top in (folder, "common") or target == "PulsarApi.pb.h":
        return True
    return top in rule or target in rule


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    problems = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".hpp", ".cpp"):
            continue
        folder = path.relative_to(root / "src").parts[0]
        if folder not in ALLOWED:
            problems.append(f"{path.relative_to(root)}: folder src/{folder} has no layer rule")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if match and not allowed(folder, match.group(1)):
                problems.append(f"{path.relative_to(root)}:{number}: src/{folder} may not include "
                                f"\"{match.group(1)}\"")
    for path in sorted((root / "include" / "reconsume").rglob("*.hpp")):
        if path.name in HANDLE_HEADERS or path.name == "reconsume.hpp":  # the umbrella
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if match and match.group(1).startswith("reconsume/") and \
                    match.group(1)[len("reconsume/"):] in HANDLE_HEADERS:
                problems.append(f"{path.relative_to(root)}:{number}: a value header may not "
                                f"include the handle header \"{match.group(1)}\"")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-layers: {len(problems)} include(s) break the layer rules (docs/DESIGN.md)")
        return 1
    print("check-layers: every include follows the layer rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
