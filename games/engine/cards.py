"""Card codes, their order and the decks (docs/rules.md §1 "Cards", "Order"; §3 "Deck" of each preset).

A card code is `<rank><suit>` (`TH` = ten of hearts) or a joker `SJ`/`BJ`; the marked cards are
`BJ*` (emperor card) and `SJ*` (guard card). Codes never change during a deal (docs/client-guide.md §3); what
a code is *worth* in play can (campus 特王, laowang 老王), so comparisons use integer values:
3..15 for the naturals 3..2, 16 small joker, 17 big joker, 18 a marked card ranked above `BJ`.
"""

from __future__ import annotations

RANKS = "3456789TJQKA2"
SUITS = "SHCD"
SJ_VALUE = 16
BJ_VALUE = 17
SUPER_VALUE = 18
TWO_VALUE = 15
JOKERS = ("SJ", "BJ", "SJ*", "BJ*")

_RANK_VALUE = {rank: index + 3 for index, rank in enumerate(RANKS)}
SUITED = tuple(rank + suit for rank in RANKS for suit in SUITS)
ALL_CODES = frozenset(SUITED) | frozenset(JOKERS)

BASE_VALUE: dict[str, int] = {code: _RANK_VALUE[code[0]] for code in SUITED}
BASE_VALUE.update({"SJ": SJ_VALUE, "SJ*": SJ_VALUE, "BJ": BJ_VALUE, "BJ*": BJ_VALUE})
VALUE_NAME = {value: rank for rank, value in _RANK_VALUE.items()}
VALUE_NAME.update({SJ_VALUE: "SJ", BJ_VALUE: "BJ", SUPER_VALUE: "super"})


def rank_value(rank: str) -> int:
    return _RANK_VALUE[rank]


def is_joker(code: str) -> bool:
    return code in JOKERS


def is_suited(code: str) -> bool:
    return code in BASE_VALUE and code not in JOKERS


def sort_key(code: str) -> tuple[int, str]:
    """High to low by printed value, then by code, so hands and plays have one canonical order."""
    return (-BASE_VALUE[code], code)


# Each code's place in that order, looked up by the sort in C (hands are sorted at every deal and play).
_PLACE = {code: place for place, code in enumerate(sorted(ALL_CODES, key=sort_key))}


def sort_codes(codes) -> tuple[str, ...]:
    return tuple(sorted(codes, key=_PLACE.__getitem__))


def build_deck(*, ranks: str, jokers: int, marked: tuple[str, ...], removed: tuple[str, ...] = (),
               extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Four decks of the given ranks, `jokers` of each joker per four decks, some copies marked.

    `marked` replaces one plain copy each (`BJ*` replaces a `BJ`), `removed` takes single copies
    out (weihai's three 6s), `extra` adds copies (campus's fifth 3).
    """
    cards: list[str] = [rank + suit for rank in ranks for suit in SUITS for _ in range(4)]
    cards += ["SJ"] * jokers + ["BJ"] * jokers
    for code in marked:
        cards.remove(code.rstrip("*"))
        cards.append(code)
    for code in removed:
        cards.remove(code)
    cards += extra
    return sort_codes(cards)
