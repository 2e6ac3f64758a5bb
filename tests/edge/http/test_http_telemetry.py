"""Whether FastAPI reports each request to OpenTelemetry (docs/service.md "Timeouts,
rate limits and headers"): off unless ``DICEBOUND_TELEMETRY=on``, because when on it
asks for the tracer, meter and logger providers on every request, configured or not.
Off, a request asks for none; on, every request asks; any other value is refused with
a sentence naming the variable, before the service opens anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry import trace

from dicebound.edge.http import create_app
from dicebound.edge.http.app import telemetry_config
from dicebound.errors import UsageError
from service_support import ADMIN_TOKEN


def _provider_asks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, given: str | None) -> int:
    """How often three ``/health`` requests asked for the tracer provider."""
    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    if given is None:
        monkeypatch.delenv("DICEBOUND_TELEMETRY", raising=False)
    else:
        monkeypatch.setenv("DICEBOUND_TELEMETRY", given)
    asks = 0
    asked = trace.get_tracer_provider

    def counted() -> trace.TracerProvider:
        nonlocal asks
        asks += 1
        return asked()

    with TestClient(create_app(f"sqlite:///{tmp_path / 'store.db'}")) as client:
        monkeypatch.setattr(trace, "get_tracer_provider", counted)
        for _ in range(3):
            assert client.get("/health").status_code == 200
    return asks


@pytest.mark.parametrize("given", [None, "", "off", " OFF "], ids=["unset", "empty", "off", "OFF"])
def test_telemetry_off_asks_for_no_provider_on_a_request(
    given: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert _provider_asks(monkeypatch, tmp_path, given) == 0


@pytest.mark.parametrize("given", ["on", " On "], ids=["on", "On"])
def test_telemetry_on_asks_for_the_providers_on_every_request(
    given: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert _provider_asks(monkeypatch, tmp_path, given) >= 3
    assert telemetry_config({"DICEBOUND_TELEMETRY": given}) == {}  # FastAPI's own defaults


@pytest.mark.parametrize("given", ["yes", "1", "true", "of"])
def test_a_telemetry_value_that_is_not_on_or_off_is_refused_naming_the_variable(
    given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(UsageError) as refused:
        telemetry_config({"DICEBOUND_TELEMETRY": given})
    assert str(refused.value) == f'DICEBOUND_TELEMETRY must be "on" or "off"; it is "{given}".'
    monkeypatch.setenv("DICEBOUND_TELEMETRY", given)
    with pytest.raises(UsageError, match="DICEBOUND_TELEMETRY"):
        create_app("sqlite:///nowhere-opened.db")
