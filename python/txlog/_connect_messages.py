"""The message a Spark Connect client sends txlog's server plugin, ``txlog.connect.Call``
(docs/connect.md): a facade method's name, its arguments as a JSON array, and the Connect
messages of the DataFrames and Columns among them. The class is built from its descriptor by the
protobuf runtime, with the field numbers ``txlog.connect.ConnectCall`` reads.

>>> message = call_class()(method="forTable", arguments='[{"session": true}, "/data/t"]')
"""

from __future__ import annotations

import functools
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool

__all__ = ["CALL_TYPE_URL", "call_class"]

#: The type URL of the call inside the relation's ``google.protobuf.Any``.
CALL_TYPE_URL = "type.googleapis.com/txlog.connect.Call"

_F = descriptor_pb2.FieldDescriptorProto
# name, number, type, label: keep in step with txlog.connect.ConnectCall.
_FIELDS = (
    ("method", 1, _F.TYPE_STRING, _F.LABEL_OPTIONAL),
    ("arguments", 2, _F.TYPE_STRING, _F.LABEL_OPTIONAL),
    ("relations", 3, _F.TYPE_BYTES, _F.LABEL_REPEATED),
    ("expressions", 4, _F.TYPE_BYTES, _F.LABEL_REPEATED),
    ("released", 5, _F.TYPE_STRING, _F.LABEL_REPEATED),
    # A fresh value per call, so that no two calls' relations are equal: Spark Connect may
    # reuse the plan of an equal relation, and a call must run each time it is made.
    ("nonce", 6, _F.TYPE_STRING, _F.LABEL_OPTIONAL),
)


@functools.cache
def call_class() -> Any:
    """The generated class of ``txlog.connect.Call``, in a descriptor pool of its own."""
    file = descriptor_pb2.FileDescriptorProto(
        name="txlog/connect/call.proto", package="txlog.connect", syntax="proto3")
    message = file.message_type.add(name="Call")
    for name, number, kind, label in _FIELDS:
        message.field.add(name=name, number=number, type=kind, label=label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    descriptor = pool.FindMessageTypeByName("txlog.connect.Call")
    from google.protobuf import message_factory

    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:
        return get(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)  # protobuf < 4.22
