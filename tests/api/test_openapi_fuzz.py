"""Schemathesis against the live server's /openapi.json: no 5xx, and every answer as documented.

Positive and negative cases for each operation, GET and HEAD (``GET /events`` is a never-ending
stream, tested in ``test_events.py``; its HEAD is fuzzed), bounded so the whole run stays well
under a minute. The server and the document agree on validity: what the document allows is not
refused with a 400 (but for the two rules no schema can state, documented in `/db-dump`'s
description and in `/game-export`'s `locale`: a locale must be one of the open project's, which
a setting changes at run time), and what it forbids is refused.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.support import KEY

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          negative_data_rejection]
# The one combination rule the document can only describe: `keys` with `key`, `startkey` or `endkey`.
KEYS_COMBINATION = "`keys` is incompatible with"
# The other rule it can only describe: `locale` names one of the project's locales (its settings'):
# those of the shared Garden (source en, no target).
PROJECT_LOCALES = {"en"}


def _positive_is_accepted(case: schemathesis.Case, response: object) -> None:
    if getattr(response, "status_code", None) == 400 and case.path == "/db-dump":
        query = case.query or {}
        if "keys" in query and {"key", "startkey", "start_key", "endkey", "end_key"} & set(query):
            return
    locale = (case.query or {}).get("locale")
    if getattr(response, "status_code", None) == 400 and case.path == "/game-export" and locale is not None \
            and str(locale).lower() not in PROJECT_LOCALES:
        return
    case.validate_response(response, checks=[positive_data_acceptance])
EXAMPLES = 60
HEAD_EXAMPLES = 20  # HEAD runs GET's code: fewer examples, to keep the run short


@pytest.mark.slow
@pytest.mark.parametrize("mode", [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE])
def test_schemathesis_finds_no_server_error(shared_api, mode):
    api = shared_api
    schema = schemathesis.openapi.from_url(api.url + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    tested = []
    for operation in operations:
        if (operation.method.upper(), operation.path) == ("GET", "/events") or operation.path == "/openapi.json":
            continue  # a never-ending stream; the public schema document (nothing to negate in it)
        tested.append(f"{operation.method.upper()} {operation.path}")

        @settings(max_examples=HEAD_EXAMPLES if operation.method.upper() == "HEAD" else EXAMPLES,
                  deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(generation_mode=mode))
        def check(case: schemathesis.Case) -> None:
            # The real key replaces a generated one; a case that leaves the key out (a negative
            # case of the security scheme) is sent without it, and must be refused (401).
            sends_key = "x-api-key" in {name.lower() for name in (case.headers or {})}
            response = case.call(base_url=api.url, headers={"x-api-key": KEY} if sends_key else None, timeout=30)
            case.validate_response(response, checks=CHECKS)
            if mode == schemathesis.GenerationMode.POSITIVE:
                _positive_is_accepted(case, response)

        check()
    # Schemathesis leaves out GET /openapi.json itself (the schema it loaded); HEAD is skipped above.
    paths = ["/attachments/{doc_id}/{name}", "/db-dump", "/game-export", "/info", "/navigate", "/schema-export"]
    assert sorted(tested) == sorted([f"GET {p}" for p in paths] + [f"HEAD {p}" for p in [*paths, "/events"]])
