"""What the schema leaves implicit, made explicit before types are built.

In the older revisions only the base ``Request``/``Notification`` declares ``params._meta``;
each message's own params omit it although every message may carry it. A message whose
params lack a property of the base params inherits it here, so ``_meta`` (progress tokens,
custom metadata) survives decoding.
"""

from __future__ import annotations

from dataclasses import replace

from ..loader.model import Node, SchemaDocument


def _base_params(doc: SchemaDocument, name: str) -> dict[str, Node]:
    """Return the properties of ``params`` in a base message definition."""
    base = doc.definition_map().get(name)
    params = base.property_map().get("params") if base is not None else None
    if params is None:
        return {}
    if params.ref is not None:
        params = doc.definition_map()[doc.ref_name(params.ref)]
    return params.property_map()


def _with(node: Node, inherited: dict[str, Node]) -> Node:
    """Return ``node`` with the inherited properties it lacks appended."""
    own = node.property_map()
    extra = tuple((k, v) for k, v in inherited.items() if k not in own)
    return replace(node, properties=node.properties + extra) if extra else node


def inherit_base_params(doc: SchemaDocument) -> SchemaDocument:
    """Give every message's params the properties of its base message's params."""
    defs = dict(doc.definitions)
    bases = {
        "Request": _base_params(doc, "Request"),
        "Notification": _base_params(doc, "Notification"),
    }
    for name, node in doc.definitions:
        props = node.property_map()
        method, params = props.get("method"), props.get("params")
        if method is None or params is None or not method.has_const:
            continue
        inherited = bases["Notification" if name.endswith("Notification") else "Request"]
        if not inherited:
            continue
        if params.ref is not None:
            target = doc.ref_name(params.ref)
            defs[target] = _with(defs[target], inherited)
        elif params.properties:
            new_props = tuple(
                (k, _with(v, inherited) if k == "params" else v) for k, v in node.properties
            )
            defs[name] = replace(node, properties=new_props)
    return replace(doc, definitions=tuple(defs.items()))
