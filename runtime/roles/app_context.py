"""The context a decorated tool may ask for, and the wire-dict helpers of the decorator app."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from ..core.codec import convert
from ..core.methods import MethodSpec
from .server import ServerContext

Json = dict[str, Any]
S = TypeVar("S", bound=msgspec.Struct)


def text_block(text: str) -> Json:
    """A text content block, as on the wire."""
    return {"type": "text", "text": text}


def object_schema(tp: object) -> Json:
    """The JSON Schema of ``tp`` with its root definition inlined (MCP wants an object root)."""
    schema: Json = msgspec.json.schema(tp)
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    defs: Json = dict(schema.get("$defs", {}))
    root: Json = dict(defs.pop(ref.rsplit("/", 1)[1]))
    if defs:
        root["$defs"] = defs
    return root


def json_object(value: object) -> Json:
    """``value`` if it is a JSON object (decoded), else an empty one."""
    return typing.cast(Json, value) if isinstance(value, dict) else {}


def json_items(value: object) -> list[object]:
    """``value`` if it is a JSON array (decoded), else an empty one."""
    return typing.cast(list[object], value) if isinstance(value, list) else []


class Context:
    """What a tool may ask for by declaring a parameter of this type: progress, logging, and
    requests to the client (sampling, elicitation, roots) within its declared capabilities."""

    def __init__(self, inner: ServerContext, methods: Mapping[str, MethodSpec[Any, Any]]) -> None:
        self.inner = inner
        self.methods = methods

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress on this call (sent only if the client asked for it)."""
        await self.inner.progress(progress, total, message)

    async def log(self, level: str, data: object, logger: str | None = None) -> None:
        """Send a log message to the client, if its level passes the client's setting."""
        await self.inner.log(level, data, logger)

    async def _ask(self, method: str, params: Json) -> Json:
        """Send a request to the client through the method table; its result as a wire dict."""
        spec = self.methods[method]
        result = await self.inner.request(spec, convert(params, spec.params))
        answer: Json = msgspec.to_builtins(result)
        return answer

    async def sample(self, prompt: str, *, max_tokens: int = 512, system: str | None = None) -> str:
        """Ask the client's model (``sampling/createMessage``); return its text answer."""
        params: Json = {"messages": [{"role": "user", "content": text_block(prompt)}]}
        params["maxTokens"] = max_tokens
        if system is not None:
            params["systemPrompt"] = system
        content: object = (await self._ask("sampling/createMessage", params)).get("content")
        blocks = json_items(content) or [content]
        texts = [json_object(block).get("text") for block in blocks]
        return "".join(text for text in texts if isinstance(text, str))

    async def elicit(self, message: str, schema: type[S]) -> S | None:
        """Ask the user to fill in ``schema`` (a flat Struct); None unless they accept."""
        params = {"message": message, "requestedSchema": object_schema(schema)}
        answer = await self._ask("elicitation/create", params)
        if answer.get("action") != "accept":
            return None
        return msgspec.convert(answer.get("content") or {}, schema)

    async def roots(self) -> list[str]:
        """The URIs of the client's roots (``roots/list``)."""
        answer = await self._ask("roots/list", {})
        return [str(root["uri"]) for root in answer.get("roots", [])]
