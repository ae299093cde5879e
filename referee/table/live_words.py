"""The dashboard's words: a headline per ruling that names its reason, and one "how to play" line per game.

The rules engines speak a sentence per ruling (`Ruling.say`), written to be
heard; a visitor reading the kiosk needs the reason first and the consequence
second ("Last to slap: Ben picks up 4 cards", not "Ben picks up 4", which
reads like a card in Irish Snap). Seats are numbered from 1 here, as
everywhere a person reads.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..core.rulings import seat_name

RANK_WORDS = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}

PICKUP_REASONS = {
    "last": "Last to slap",
    "false_slap": "False slap",
    "flinch": "Flinch",
    "stalled": "Nobody can lay",
    "match_first": "Matched the row's first card",
    "match_prev": "Matched the card before",
    "match_other": "A match in the row",
    "joker": "Joker",
    "chicken": "Chickened out",
    "flush": "Broke the flush",
    "straight": "Broke the straight",
    "glide": "Broke the glide",
    "ten_string": "Ten cards, no match",
}

HOW_TO = {
    "slapjack": "Slap when a Jack lands: the first slap wins the pile",
    "slapjack-classic": "Slap when a Jack lands: the first slap wins the pile",
    "slapstick": "Lay in turn. Match the row's first or last card: you pick up. Press to chicken out",
}


def rank_word(rank: str | None) -> str:
    """'Q' -> 'Queen', '7' -> '7'."""
    if not rank:
        return ""
    return RANK_WORDS.get(str(rank).upper(), str(rank))


def cards_word(n: Any) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _margin(fields: Mapping[str, Any]) -> str:
    us = fields.get("margin_us")
    if not isinstance(us, (int, float)):
        return ""
    if us < 1000:
        return f", by {us:.0f} µs"
    return f", by {us / 1000:.1f} ms" if us < 10_000 else f", by {us / 1000:.0f} ms"


def headline(kind: str, seat: int | None, fields: Mapping[str, Any], names: list[str] | None = None,
             say: str = "") -> str:
    """One line naming what happened and why, for the dashboard's big ruling area."""
    who = seat_name(seat, names)
    n = fields.get("cards")
    if kind == "wins_pile":
        return f"First slap: {who} wins {cards_word(n)}{_margin(fields)}"
    if kind == "picks_up":
        reason = PICKUP_REASONS.get(str(fields.get("reason")), "")
        what = f"{who} picks up {cards_word(n)}" if n is not None else f"{who} picks up"
        return f"{reason}: {what}{_margin(fields) if fields.get('reason') == 'last' else ''}" if reason else what
    if kind == "false_slap":
        return f"False slap by {who}: nothing to slap on"
    if kind == "pays":
        return f"For the false slap: {who} pays {seat_name(fields.get('to'), names)} {cards_word(n or 1)}"
    if kind == "slap_again":
        return "Dead heat: slap again!"
    if kind == "out":
        return f"{who} is out of the game"
    if kind == "back_in":
        return f"{who} slaps back in"
    if kind == "game_over":
        winner, loser = fields.get("winner"), fields.get("loser")
        if winner is not None:
            return f"Game over: {seat_name(winner, names)} wins!"
        if loser is not None:
            return f"Game over: {seat_name(loser, names)} is left with cards and loses"
        return "Game over"
    return say or f"{who}: {kind.replace('_', ' ')}"


def how_to_play(game_id: str, call: str | None = None, target: str | None = None) -> str:
    """What to slap on now in this game, in a few words (the count in Irish Snap, the target in All Faces)."""
    if game_id in ("irish-snap", "irish-snap-plus"):
        tail = "; don't flinch" if game_id == "irish-snap-plus" else ""
        if call:
            article = "an" if call[:1].upper() in "AEIO" or call.startswith("8") else "a"
            return f"Count: {call}. Slap if the card is {article} {call}! Last to slap picks up{tail}"
        return f"Count Ace to King. Slap when the card matches the count; last to slap picks up{tail}"
    if game_id == "slapjack-all-faces":
        word = rank_word(target or "J")
        return f"Slap when a {word} lands: the first slap wins the pile"
    return HOW_TO.get(game_id, "Slap the pile when the rules say so")


def standings(game_id: str, players: list[dict[str, Any]], winner: int | None, loser: int | None,
              totals: list[int] | None = None) -> list[dict[str, Any]]:
    """The game-over table, best first: fewest penalty points (Slapstick), most faces won (All Faces), fewest
    cards (Irish Snap: getting rid of them wins), most cards (Slapjack: collecting them wins); the winner
    first and the loser last whatever the count says (a time limit decides on the rules' own standings)."""
    def what(p: dict[str, Any]) -> tuple[float, str]:
        if totals is not None:
            points = totals[p["seat"]] if p["seat"] < len(totals) else 0
            return -points, f"{points} penalty points"
        if game_id == "slapjack-all-faces":
            return p["scoring"], f"{p['scoring']} faces won"
        sign = -1 if game_id.startswith("irish-snap") else 1
        return sign * p["cards"], cards_word(p["cards"])

    def key(p: dict[str, Any]) -> tuple[int, float, int]:
        place = 0 if p["seat"] == winner else 2 if p["seat"] == loser else 1
        return place, -what(p)[0], p["seat"]
    return [{"seat": p["seat"], "name": p["name"], "what": what(p)[1]} for p in sorted(players, key=key)]
