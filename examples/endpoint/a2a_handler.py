"""An endpoint behind an A2A message handler.

The writer's agent receives A2A messages; each carries one RW1 line (a text
part for the model, a data part for code). The handler takes the line out,
gives it to the writer's endpoint, and returns the protocol's own replies as
A2A messages; the readback composed by code goes back the same way. Run it::

    python examples/endpoint/a2a_handler.py
"""

from __future__ import annotations

from rogerwilco import Endpoint
from rogerwilco.a2a import EXTENSION_URI, EndpointHandler, from_a2a_dict
from rogerwilco.endpoint import HandoffOffered

HO = ("RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2 conf=M "
      "keep=research // hero copy, 120 words, no em dashes")


def run() -> list[str]:
    writer = EndpointHandler(Endpoint("writer", id_width=2))
    research = EndpointHandler(Endpoint("research", id_width=2))
    wire: list[str] = []

    incoming = research.send(HO, context_id="ctx-42")  # what the research agent's client posts
    handled = writer.handle(incoming)
    offered = next(e for e in handled.events if isinstance(e, HandoffOffered))
    answer = writer.send(offered.readback, number=True, context_id="ctx-42")
    wire += [from_a2a_dict(incoming).line, from_a2a_dict(answer).line]
    research.handle(answer)

    # a line with an unknown code, carried correctly: the handler answers UN why=UNK in the same context
    unknown = {"messageId": "m-1", "role": "ROLE_USER", "contextId": "ctx-42", "extensions": [EXTENSION_URI],
               "parts": [{"text": "RW1 HO research-02 from=research to=writer item=gh:crox/site#43 ask=DRAFTT",
                          "mediaType": "text/plain", "metadata": {EXTENSION_URI: {"part": "line"}}}]}
    refused = writer.handle(unknown)
    wire += [from_a2a_dict(r).line for r in refused.replies]
    assert all(r["contextId"] == "ctx-42" for r in refused.replies)
    return wire


if __name__ == "__main__":
    for line in run():
        print(line)
