"""Schemathesis fuzzes the API against its own OpenAPI schema: no input may cause a server error,
and every answer must match the documented shapes.

One check is left out: "schema-valid data must be accepted". Room limits depend on each other
(mines allowed by the size, a preset or a custom size), which OpenAPI cannot express, so a
schema-valid body can rightly get a 400 with its reason.
"""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_never_fails_and_matches_its_schema(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
