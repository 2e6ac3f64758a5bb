"""``/docs``: the API's reference as one page rendered on the server from the OpenAPI
document, with no script and nothing loaded from anywhere (issue 23: Swagger UI came
from a CDN, at a floating version, on the same origin as the page that holds a token).

The style is inline, allowed by its hash in the page's Content-Security-Policy, which
allows nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from html import escape
from typing import Any

__all__ = ["DOCS_HEADERS", "docs_page"]

_STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:62rem;margin:0 auto;padding:1rem 1.5rem;
color:#1b1b1b;background:#fff}
h2{margin-top:2.5rem;border-bottom:2px solid #ddd}
h3{margin:2rem 0 .25rem;font-size:1.05rem}
code{font:.92em ui-monospace,monospace;background:#f3f3f3;padding:0 .2em;border-radius:3px}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
th,td{text-align:left;vertical-align:top;padding:.2rem .6rem .2rem 0;border-bottom:1px solid #e5e5e5}
th{font-weight:600}
nav ul{columns:2 22rem}
.muted{color:#555}
"""

_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")

DOCS_HEADERS = {
    "Content-Security-Policy": (
        f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}

_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
_LIMITS = (
    ("minLength", "{} or more characters"),
    ("maxLength", "up to {} characters"),
    ("minimum", "at least {}"),
    ("maximum", "at most {}"),
    ("minItems", "{} or more items"),
    ("maxItems", "up to {} items"),
    ("pattern", "matching {}"),
)


def docs_page(openapi: Mapping[str, Any]) -> str:
    """The whole page for an OpenAPI document, as HTML."""
    info = openapi.get("info", {})
    operations = list(_operations(openapi))
    tags: dict[str, list[tuple[str, str, Mapping[str, Any]]]] = {}
    for path, method, operation in operations:
        tags.setdefault((operation.get("tags") or ["other"])[0], []).append(
            (path, method, operation)
        )
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(info.get('title', 'API'))}: the HTTP API</title>",
        '<link rel="icon" href="data:,">',
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(info.get('title', 'API'))} {escape(str(info.get('version', '')))}: "
        "the HTTP API</h1>",
        f"<p>{_text(info.get('summary', ''))}</p>",
        '<p class="muted">This page is drawn by the service from its OpenAPI document, '
        '<a href="/openapi.json">/openapi.json</a>. Send a token as '
        "<code>Authorization: Bearer TOKEN</code>. Every refusal is "
        "<code>application/problem+json</code> (RFC 9457).</p>",
        "<nav><h2>Routes</h2><ul>",
    ]
    for path, method, _ in operations:
        out.append(
            f'<li><a href="#{_anchor(path, method)}"><code>{method.upper()} {escape(path)}'
            "</code></a></li>"
        )
    out.append("</ul></nav>")
    for tag, members in tags.items():
        out.append(f"<h2>{escape(tag)}</h2>")
        out += [_operation(path, method, operation) for path, method, operation in members]
    schemas = openapi.get("components", {}).get("schemas", {})
    if schemas:
        out.append("<h2>Schemas</h2>")
        out += [_schema(name, schema) for name, schema in schemas.items()]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _operations(openapi: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    for path, item in openapi.get("paths", {}).items():
        for method in _METHODS:
            if method in item:
                yield path, method, item[method]


def _anchor(path: str, method: str) -> str:
    return f"{method}-" + re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")


def _text(text: str) -> str:
    """Escaped, with ``code`` spans shown as code."""
    return re.sub(r"``(.+?)``", r"<code>\1</code>", escape(text))


def _operation(path: str, method: str, operation: Mapping[str, Any]) -> str:
    out = [
        f'<section><h3 id="{_anchor(path, method)}"><code>{method.upper()} {escape(path)}'
        "</code></h3>"
    ]
    description = operation.get("description") or operation.get("summary", "")
    out += [f"<p>{_text(part)}</p>" for part in description.split("\n\n") if part.strip()]
    if operation.get("security"):
        out.append('<p class="muted">Needs a token.</p>')
    parameters = operation.get("parameters", [])
    if parameters:
        out.append("<table><tr><th>parameter</th><th>in</th><th>type</th></tr>")
        for p in parameters:
            required = "" if p.get("required") else " (optional)"
            out.append(
                f"<tr><td><code>{escape(p['name'])}</code>{required}</td>"
                f"<td>{escape(p.get('in', ''))}</td><td>{_kind(p.get('schema', {}))}</td></tr>"
            )
        out.append("</table>")
    body = operation.get("requestBody")
    if body:
        for media, content in body.get("content", {}).items():
            out.append(
                f"<p>Body: <code>{escape(media)}</code>, {_kind(content.get('schema', {}))}</p>"
            )
    out.append("<table><tr><th>answer</th><th>when</th><th>body</th></tr>")
    for status, response in operation.get("responses", {}).items():
        content = response.get("content", {})
        kinds = [_kind(c["schema"]) for c in content.values() if "schema" in c]
        out.append(
            f"<tr><td>{escape(str(status))}</td><td>{_text(response.get('description', ''))}"
            f"</td><td>{kinds[0] if kinds else ''}</td></tr>"
        )
    out.append("</table></section>")
    return "\n".join(out)


def _schema(name: str, schema: Mapping[str, Any]) -> str:
    out = [f'<section><h3 id="schema-{escape(name)}">{escape(name)}</h3>']
    if schema.get("description"):
        out.append(f"<p>{_text(schema['description'])}</p>")
    properties = schema.get("properties", {})
    if properties:
        required = set(schema.get("required", ()))
        out.append("<table><tr><th>field</th><th>type</th><th>about</th></tr>")
        for field, value in properties.items():
            optional = "" if field in required else " (optional)"
            out.append(
                f"<tr><td><code>{escape(field)}</code>{optional}</td><td>{_kind(value)}</td>"
                f"<td>{_text(value.get('description', ''))}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append(f"<p>{_kind(schema)}</p>")
    out.append("</section>")
    return "\n".join(out)


def _kind(schema: Mapping[str, Any]) -> str:
    """A schema in a few words, its named parts linked to their sections."""
    if "$ref" in schema:
        name = escape(str(schema["$ref"]).rsplit("/", 1)[-1])
        return f'<a href="#schema-{name}">{name}</a>'
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            joiner = " and " if key == "allOf" else " or "
            return joiner.join(_kind(part) for part in schema[key])
    if "const" in schema:
        return f"<code>{escape(json.dumps(schema['const']))}</code>"
    if "enum" in schema:
        return "one of " + ", ".join(
            f"<code>{escape(json.dumps(v))}</code>" for v in schema["enum"]
        )
    kind = schema.get("type")
    if kind == "array":
        words = "array of " + _kind(schema["items"]) if "items" in schema else "array"
    elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        words = "object of " + _kind(schema["additionalProperties"])
    else:
        words = escape(str(kind)) if kind else "any JSON"
    limits = [text.format(escape(str(schema[k]))) for k, text in _LIMITS if k in schema]
    return words + (f" ({', '.join(limits)})" if limits else "")
