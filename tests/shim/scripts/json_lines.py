"""Checks a numabind log line by line, strictly:  json_lines.py json|text LOG

Prints one JSON line (UTF-8) per line of LOG: with json, the line's object again (ensure_ascii=False); with
text, {"text": line}; or {"bad": why, "line": ...} when the line is not strict UTF-8, not exactly one JSON
object, has a repeated key or a NaN/Infinity. A LOG that does not end in a newline ends with a bad line.
"""
import json
import sys


def pairs(items):
    keys = [k for k, _ in items]
    if len(set(keys)) != len(keys):
        raise ValueError("repeated key")
    return dict(items)


def reject(constant):
    raise ValueError("not JSON: " + constant)


def check(kind, raw):
    text = raw.decode("utf-8", "strict")
    if kind == "text":
        return {"text": text}
    obj = json.loads(text, object_pairs_hook=pairs, parse_constant=reject)
    if not isinstance(obj, dict):
        raise ValueError("not an object")
    return obj


def main():
    kind, path = sys.argv[1:3]
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    out = []
    for raw in lines[:-1]:
        try:
            out.append(check(kind, raw))
        except ValueError as e:  # UnicodeDecodeError and json.JSONDecodeError are ValueErrors
            out.append({"bad": str(e), "line": raw.decode("utf-8", "replace")[:400]})
    if lines[-1]:
        out.append({"bad": "no newline at the end", "line": lines[-1].decode("utf-8", "replace")[:400]})
    for obj in out:
        sys.stdout.buffer.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")


if __name__ == "__main__":
    main()
