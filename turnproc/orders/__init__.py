"""The order mail and its one parser: what a player writes and what it means
before any turn is resolved.

``orders`` holds the parsed values (the header, each order, each problem);
``mailshape`` finds the orders in a mail (quoted replies, pasted reports);
``reader`` splits lines into tokens and fields; ``grammar`` and ``commands``
say which words exist; ``problems`` numbers every mistake a player can make;
``vocabulary`` names the engine's event kinds and failure reasons the reports
match on; ``parser`` puts them together (the acknowledgement, the offline
checker and the turn all read orders through it); ``redact`` takes passwords
out of stored order text.

Pure like the rules (standard library only). The order values stand on the
game state (:mod:`turnproc.rules.state`); the checks of orders against a
state are the engine's (:mod:`turnproc.rules.checks`), called by the parser
when it is given a state.
"""
