#!/usr/bin/env python3
"""Reference implementation of the corpus manifest, in plain Python 3.

Written for the benchmark (docs/performance.md) and as an independent check of
the Go code: the standard library only, the straightforward way. It builds the
manifest of a corpus tree exactly as `proveit manifest` writes it, byte for
byte, and verifies a tree against a manifest as `proveit verify` does: every
entry recomputed from the bytes (changed, missing or extra files named), then
the manifest rebuilt from the tree and compared byte for byte.

    reference.py manifest TREE OUT [--tasks taches.json]
    reference.py verify TREE MANIFEST [--tasks taches.json]

The hashes are Trust Layer's (docs/contract.md, section 1):
sha256(json.dumps(value, sort_keys=True, separators=(",", ":"))).
"""

import argparse
import hashlib
import json
import os
import re
import sys

FORMAT = "proveit-corpus-manifest/1"
TRACK = "conformite"
ORIGIN = "https://corpus.arkforge.tech"
REQUEST = {"method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}
COLLECTIONS = ["entites", "agrements", "attestations", "avenants",
               "listes/agrees", "beneficiaires", "mesures-restrictives"]
REFERENTIEL = "/referentiel"
SYSTEM_STATUS = {"/_systeme/400": 400, "/_systeme/403": 403,
                 "/_systeme/404": 404, "/_systeme/503": 503}
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def set_track(track, rules, collections):
    """Serve another track than the default one: its name, the path of its
    rules and its collections, as the benchmark passes them."""
    global TRACK, REFERENTIEL, COLLECTIONS
    TRACK, REFERENTIEL, COLLECTIONS = track, rules, collections


class Invalid(Exception):
    """A file the corpus may not hold."""


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def request_hash(target):
    return sha256(canonical(dict(target=target, **REQUEST)))


def response_hash(value):
    return sha256(canonical(value if value else {"error": None}))


def is_reference(path):
    """/<collection>/<id> for a known collection and an id in the grammar."""
    for collection in COLLECTIONS:
        prefix = "/" + collection + "/"
        if path.startswith(prefix) and ID.fullmatch(path[len(prefix):]):
            return True
    return False


def path_of(name):
    if not name.endswith(".json"):
        raise Invalid(name + ": not a .json file")
    path = "/" + name[:-len(".json")]
    if path == REFERENTIEL or path in SYSTEM_STATUS or is_reference(path):
        return path
    raise Invalid(name + ": not a canonical resource name")


def absent_body(path):
    return ('{\n  "ressource": "' + path + '",\n  "existe": false,\n'
            '  "message": "Aucune ressource n\'existe à ce chemin dans le corpus '
            'figé de la saison."\n}\n').encode()


def read_tree(root):
    """Every file of the tree by canonical path: (name, bytes)."""
    files, problems = {}, []
    for folder, _, names in os.walk(root):
        for base in names:
            full = os.path.join(folder, base)
            name = os.path.relpath(full, root).replace(os.sep, "/")
            if os.path.islink(full) or not os.path.isfile(full):
                problems.append(name + ": not a regular file")
                continue
            try:
                path = path_of(name)
            except Invalid as e:
                problems.append(str(e))
                continue
            with open(full, "rb") as f:
                files[path] = (name, f.read())
    return files, problems


def check_body(data, cited):
    """Parse a served file: a non-empty object, strings, booleans and null
    only. Adds every reference it holds to cited."""
    value = json.loads(data)
    if not isinstance(value, dict) or not value:
        raise Invalid("the document must be a non-empty JSON object")
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            if is_reference(v):
                cited.add(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            raise Invalid("numbers are not allowed in the corpus")
    return value


def entry(path, name, body, value, origin=ORIGIN):
    kind, status, target = "document", 200, origin + path
    if name is None:
        kind = "absent"
    elif path in SYSTEM_STATUS:
        kind, status, target = "systeme", SYSTEM_STATUS[path], None
    return {
        "path": path,
        "kind": kind,
        "status": status,
        "target": target,
        "file": name,
        "bytes_sha256": sha256(body),
        "request_hash": request_hash(target) if target else None,
        "response_hash": response_hash(value),
    }


def citations(tasks_file):
    if not tasks_file:
        return []
    with open(tasks_file, "rb") as f:
        tasks = json.load(f)
    # A conformity task names its entity; a purchasing need has none.
    return [p for t in tasks["taches"]
            for p in ([t["entite"]] if t.get("entite") else []) + t.get("references", [])]


def build(root, tasks_file=None):
    """The manifest of a tree, as the bytes `proveit manifest` writes."""
    files, problems = read_tree(root)
    if problems:
        raise Invalid("\n".join(problems))
    cited = {c for c in citations(tasks_file) if is_reference(c)}
    resources = []
    for path, (name, data) in files.items():
        resources.append(entry(path, name, data, check_body(data, cited)))
    for path in cited - files.keys():
        body = absent_body(path)
        resources.append(entry(path, None, body, json.loads(body)))
    resources.sort(key=lambda e: e["path"])
    manifest = {"format": FORMAT, "piste": TRACK, "origin": ORIGIN,
                "request": REQUEST, "resources": resources}
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def check(root, manifest):
    """Every problem between a tree and its manifest, each entry recomputed
    from the bytes."""
    files, problems = read_tree(root)
    cited, listed = set(), set()
    origin = manifest["origin"]
    for e in manifest["resources"]:
        path = e["path"]
        listed.add(path)
        if e["kind"] in ("document", "systeme"):
            if path not in files:
                problems.append(path + ": missing from the tree")
                continue
            name, body = files[path]
            try:
                value = check_body(body, cited)
            except (Invalid, ValueError) as err:
                problems.append("%s: %s" % (name, err))
                continue
        elif e["kind"] == "absent":
            if path in files:
                problems.append(path + ": listed as absent but the file exists")
                continue
            if not is_reference(path):
                problems.append(path + ": absent entry outside the reference grammar")
                continue
            name, body = None, absent_body(path)
            value = json.loads(body)
        else:
            problems.append("%s: unknown kind %r" % (path, e["kind"]))
            continue
        want = entry(path, name, body, value, origin)
        for field in ("kind", "status", "target", "file", "bytes_sha256",
                      "request_hash", "response_hash"):
            if e.get(field) != want[field]:
                problems.append("%s: %s is %r, manifest says %r"
                                % (path, field, want[field], e.get(field)))
    for path in sorted(files.keys() - listed):
        problems.append(files[path][0] + ": extra: not in the manifest")
    for path in sorted(cited - files.keys() - listed):
        problems.append(path + ": cited but has neither a file nor an absent entry")
    return problems


def verify(root, manifest_file, tasks_file=None):
    with open(manifest_file, "rb") as f:
        data = f.read()
    manifest = json.loads(data)
    if manifest.get("format") != FORMAT:
        return ["manifest: format %r" % manifest.get("format")]
    problems = check(root, manifest)
    try:
        if build(root, tasks_file) != data:
            problems.append(manifest_file + ": not byte for byte the manifest the tree builds to")
    except (Invalid, ValueError) as err:
        problems.append("cannot rebuild the manifest: %s" % err)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["manifest", "verify"])
    parser.add_argument("tree")
    parser.add_argument("manifest")
    parser.add_argument("--tasks", help="task statements whose citations get absent entries")
    parser.add_argument("--track", default=TRACK, help="the track's name, the manifest's piste")
    parser.add_argument("--rules", default=REFERENTIEL, help="the path of the track's rules")
    parser.add_argument("--collections", default=",".join(COLLECTIONS),
                        help="the track's collections, separated by commas")
    args = parser.parse_args()
    set_track(args.track, args.rules, args.collections.split(","))
    if args.command == "manifest":
        data = build(args.tree, args.tasks)
        with open(args.manifest, "wb") as f:
            f.write(data)
        print("wrote %s (sha256 %s)" % (args.manifest, sha256(data)))
        return 0
    problems = verify(args.tree, args.manifest, args.tasks)
    for p in problems:
        print("FAIL " + p)
    if problems:
        return 1
    print("OK %s matches %s" % (args.tree, args.manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
