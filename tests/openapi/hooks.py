"""Schemathesis hooks for the poscheck sandbox (SCHEMATHESIS_HOOKS=hooks, tests/openapi/).

Each case that carries a valid Idempotency-Key (a UUID) gets a fresh one: the contract makes a key
"fresh per logical attempt" and answers the same key with another body 422 idempotency-conflict, so
a key Schemathesis reuses across generated bodies would test the cache, not the operation. Invalid
keys (negative cases) are left as generated.
"""
import uuid

import schemathesis


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key":
            try:
                uuid.UUID(str(headers[name]))
            except ValueError:
                continue
            headers[name] = str(uuid.uuid4())
