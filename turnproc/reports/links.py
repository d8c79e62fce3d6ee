"""Where a player finds the rules and the game's site, as the mails say it.

The public pages (``turnproc site``, ``site_dir``) carry the rulebook and the
players' guide for each game; ``site_url`` in the configuration is the address
they are served at. Without it no mail gives a link that leads nowhere: it
says to ask the game master, and to send HELP for the short guide by mail.
"""

from __future__ import annotations

__all__ = ["game_links"]


def game_links(site_url: str, game: str | None, gm_address: str = "") -> dict[str, str]:
    """What the templates' ``links`` hold: ``site``, ``rules``, ``orders`` and
    ``desk`` (the order desk: docs/orders.md, "The order desk") — addresses,
    empty without ``site_url`` or a game — and ``gm`` (the GM's address, empty
    when there is none)."""
    if not site_url or not game:
        return {"site": "", "rules": "", "orders": "", "desk": "", "gm": gm_address}
    site = f"{site_url.rstrip('/')}/{game}/"
    return {
        "site": site,
        "rules": site + "rules.html",
        "orders": site + "orders.html",
        "desk": site + "orders/",
        "gm": gm_address,
    }
