#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/ from the shared fixtures (tests/fixtures/**),
in the input format of each target (see fuzz/src/harness.rs). Run from the repository root;
existing corpus files are kept (the fuzzers add theirs next to the seeds)."""

import base64
import hashlib
import json
import re
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures")
OUT = os.path.join(ROOT, "fuzz", "corpus")


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(*parts):
    with open(os.path.join(FIX, *parts), "rb") as f:
        return f.read()


def files(sub):
    d = os.path.join(FIX, sub)
    return sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n)) and n != "cases.json" and not n.endswith((".md", ".py")))


def header_lines(headers):
    out = []
    for name, value in headers.items():
        for v in value if isinstance(value, list) else [value]:
            out.append(f"{name}: {v}")
    return "\r\n".join(out)


def body_of(case):
    if case.get("bodyText") is not None:
        return case["bodyText"]
    if case.get("body") is None:
        return ""
    return json.dumps(case["body"], separators=(",", ":"), ensure_ascii=False)


def main():
    # json, menu, payload, order: the fixture files as they are.
    for sub in ("menu", "payload", "order", "problems", "requests", "signature", "diff"):
        for name in files(sub) + ["cases.json"]:
            if os.path.exists(os.path.join(FIX, sub, name)):
                data = read(sub, name)
                if len(data) <= 64 * 1024:
                    put("json", data)
    for name in files("menu"):
        put("menu", read("menu", name))
    for name in files("payload"):
        put("payload", read("payload", name))
    for case in json.loads(read("payload", "cases.json")):
        head = "@" + (case.get("kind") or "") + "|" + (case.get("path") or "") + "\n"
        put("payload", head.encode() + read("payload", case["file"]))
    events = [read("payload", n) for n in files("payload") if n.startswith("order-update-event")]
    for i, name in enumerate(files("order")):
        data = read("order", name)
        put("order", data)
        if events:
            put("order", data + b"\0" + events[i % len(events)])

    # menu_diff: current NUL next, as the diff manifest pairs them; reject bodies for order.
    for case in json.loads(read("diff", "cases.json")):
        put("menu_diff", read(*case["current"].split("/")) + b"\0" + read(*case["next"].split("/")))
    for name in files("order")[:10]:
        put("order", read("order", name) + b'\0{"reasonCode":"TOO_BUSY","message":"x"}')
        put("order", read("order", name) + b'\0{"status":"ready","occurredAt":"2026-08-12T00:00:00Z"}')
    # request: raw HTTP requests from the request manifest (also seeds of http and payload).
    menu_requests = []
    for case in json.loads(read("requests", "cases.json")):
        r = case["request"]
        msg = f"{r['method']} {r['path']} HTTP/1.1\r\n{header_lines(r.get('headers') or {})}\r\n\r\n{body_of(r)}"
        for t in ("request", "http", "payload"):
            put(t, msg)
        put("sandbox", msg)
        # Without its own key the harness sends the sandbox's: the request reaches the state.
        keyless = re.sub(r"(?im)^x-service-api-key:[^\r\n]*\r\n", "", msg)
        put("sandbox", keyless)
        if "/menu" in r["path"]:
            menu_requests.append(keyless)
    # Control requests (/_sandbox/…, routed by the core since issue 39), one after the other.
    controls = [
        "POST /_sandbox/orders HTTP/1.1\r\n\r\n{}",
        "GET /_sandbox/orders HTTP/1.1\r\n\r\n",
        "POST /_sandbox/advance HTTP/1.1\r\n\r\n{\"seconds\":30}",
        "GET /_sandbox/requests?after=0 HTTP/1.1\r\n\r\n",
        "GET /_sandbox/journal?after=1 HTTP/1.1\r\n\r\n",
        "GET /_sandbox/deliveries HTTP/1.1\r\n\r\n",
        "PUT /_sandbox/faults HTTP/1.1\r\n\r\n{\"unavailable\":1}",
        "POST /_sandbox/menu/fail HTTP/1.1\r\n\r\n{\"store\":\"STORE-1\"}",
        "GET /_sandbox/menu/stores/STORE-1 HTTP/1.1\r\n\r\n",
        "POST /_sandbox/reset HTTP/1.1\r\n\r\n{}",
    ]
    for c in controls:
        put("sandbox", c)
    put("sandbox", "\0".join(controls))
    # The menu's requests one after the other (an upload, then changes and reads on that state).
    put("sandbox", "\0".join(menu_requests))
    # problem: raw HTTP responses from the problem manifest.
    for case in json.loads(read("problems", "cases.json")):
        msg = f"HTTP/1.1 {case['status']} X\r\n{header_lines(case.get('headers') or {})}\r\n\r\n{body_of(case)}"
        for t in ("problem", "http", "payload"):
            put(t, msg)
    # signature: secrets NUL-separated, a newline, then headers, an empty line and the body.
    vectors = json.loads(read("signature", "vectors.json"))
    for v in vectors["verify"]:
        secrets = "\0".join(v["secrets"]).encode()
        head = header_lines(v["headers"]).encode()
        put("signature", secrets + b"\n" + head + b"\r\n\r\n" + base64.b64decode(v["bodyBase64"]))
    for v in vectors["sign"]:
        head = f"X-Service-Timestamp: {v['timestamp']}\r\nX-Service-Signature-256: {v['signature']}".encode()
        put("signature", v["secret"].encode() + b"\n" + head + b"\r\n\r\n" + base64.b64decode(v["bodyBase64"]))
    # large: one small seed per shape (shape, key character, sizes).
    for shape in range(10):
        for size in (4, 10, 14):
            put("large", bytes([shape, shape * 7, size, 0, 9, 1, size - 2, 0, 3, 2, 5, 1, 1]))
    # large, deep nesting past json::MAX_DEPTH (1,099 levels): arrays under maxDepth usize::MAX,
    # objects under maxDepth 1,099 (clamped to 1,000).
    put("large", bytes([2, 0, 10, 0, 0, 75, 2, 0, 0, 0, 0, 0, 0, 0]))
    put("large", bytes([2, 0, 10, 0, 0, 75, 10, 0, 0, 75, 0, 0, 0, 0]))
    print("seeded", ", ".join(f"{t}: {len(os.listdir(os.path.join(OUT, t)))}" for t in sorted(os.listdir(OUT))))


if __name__ == "__main__":
    sys.exit(main())
