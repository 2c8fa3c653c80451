"""Rule sets and the seven presets (docs/rules.md §3, options §6).

A preset is a frozen `RuleSet` of switches, never a subclass: every phase module reads the
switches it needs, so one rule machine plays every regional system.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from .cards import build_deck, rank_value

PRESETS = ("weihai", "lianzhong_simple", "lianzhong_classic", "wuren", "campus", "laowang", "pagat")


@dataclass(frozen=True)
class RuleSet:
    name: str
    options: tuple[tuple[str, object], ...]
    deck: tuple[str, ...]
    # The card kept aside and handed to whoever becomes candidate / emperor (wuren BJ*, laowang BJ).
    aside_card: str | None = None
    # How the first candidate is found: the holder of BJ* ("holder"), a random seat ("random":
    # wuren, which hands it the aside BJ*), or the receiver of a turned card ("turned": laowang).
    candidate_mode: str = "holder"
    # Where a declined emperor role goes: -1 = 上家 (seat - 1), +1 = 下家 (seat + 1).
    decline_direction: int = -1
    can_decline: bool = True
    can_transfer: bool = False  # weihai 转让 (to seat + 2)
    # What a decliner after the first hands on with the role: nothing, "two_or_highest" (a 2, else
    # his highest non-joker: lianzhong_simple), "two_if_any" (wuren), "two_required" (no 2, no
    # decline: campus, laowang).
    attach_on_decline: str = "none"
    void_after_declines: int | None = None  # the deal is void once this many declines happened
    forced_after_declines: int | None = None  # from then on a receiver must accept (classic, pagat)
    # classic: once forced, a receiver may still decline when he cannot accept or holds four identical
    # suited cards (docs/rules.md §3.3); pagat: forced without exception.
    forced_spares_four: bool = False
    # wuren: a candidate without a callable triple declines automatically (seed 002: 系统自动 passes
    # the role on), which makes "he had no triple" public by the rules themselves.
    auto_decline_unable: bool = False
    # When a candidate may answer `solo` in emperor selection: "always", "with_guard_card",
    # "with_guard_card_or_qiangdu", "never".
    selection_solo: str = "never"
    # Guard: "fixed" (holder of SJ*) or "called" (holder of the fourth copy of a called card).
    guard_mode: str = "fixed"
    # Which cards can be called: None, "classic" (suited, 2s allowed), "wuren" (not 2s),
    # "campus" (not 3s or 2s, every other player holds that rank).
    call_mode: str | None = None
    call_solo_shows_four: bool = False  # wuren 明独: `solo` with a card of which he holds four
    call_solo_open: bool = False  # classic: `solo` instead of calling (明独保)
    solo_window: bool = False
    declaration_window: bool = False
    rebel_allowed: bool = False
    # "two": two or more rebels succeed, double and force the guard / hidden soloist out (weihai,
    # lianzhong_simple); "any": any declaration doubles once, nobody is forced out (pagat).
    declaration_doubling: str = "two"
    kick_window: bool = False
    # Play (docs/rules.md §1, §4).
    must_last: int | None = None  # value of the rank that must go last (6 or 3)
    roasting: bool = False
    two_kill: bool = False
    twos_attach: bool = False  # laowang: a 2 may be attached to a set of another rank
    twos_carry_no_jokers: bool = False  # campus
    bombs: bool = False  # campus
    guard_card_super: bool = False  # laowang 老王 / campus 特王 rank above BJ
    scoring: str = "weihai"
    tribute: str = "none"  # "none", "wuren", "laowang", "pagat"
    tribute_jokers: bool = False  # wuren gives its highest cards, jokers included
    start_seat_moves: bool = False  # pagat: the start seat moves on one seat per deal
    buy_three: bool = False  # campus
    hide_counts_above: int | None = None  # laowang
    match_deals: int = 0  # campus matches are six deals; 0 = until the table dissolves

    @property
    def option_dict(self) -> dict:
        return dict(self.options)

    @cached_property
    def key(self) -> tuple:
        """What the play caches are keyed by (made once: they ask for it at every decision)."""
        return (self.name, self.options)


_FOUR_DECKS_6_UP = dict(ranks="6789TJQKA2", jokers=4)

_OPTION_DEFAULTS = {
    "lianzhong_simple": {"qiangdu": True, "must_last": None, "roasting": False},
    "lianzhong_classic": {"qiangdu": True, "must_last": None, "roasting": False},
}


def _check_options(name: str, options: dict) -> dict:
    allowed = _OPTION_DEFAULTS.get(name, {})
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"preset {name!r} has no option {unknown[0]!r}")
    merged = {**allowed, **options}
    if "qiangdu" in merged and not isinstance(merged["qiangdu"], bool):
        raise ValueError("option 'qiangdu' must be true or false")
    if "roasting" in merged and not isinstance(merged["roasting"], bool):
        raise ValueError("option 'roasting' must be true or false")
    if "must_last" in merged and merged["must_last"] not in (None, 6):
        raise ValueError("option 'must_last' must be null or 6")
    return merged


def preset(name: str, **options) -> RuleSet:
    """The named preset with its table options (docs/rules.md §6); unknown names or options raise ValueError.

    Built once per name and options (a RuleSet is immutable): every state read from storage asks
    for its rules, and building a deck each time was a third of reading a state."""
    try:
        return _preset_cached(name, tuple(sorted(options.items())))
    except TypeError:  # an unhashable option value: refused below, uncached
        return _preset_build(name, **options)


@lru_cache(maxsize=256)
def _preset_cached(name: str, options: tuple) -> RuleSet:
    return _preset_build(name, **dict(options))


def _preset_build(name: str, **options) -> RuleSet:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}")
    opts = _check_options(name, options)
    frozen_options = tuple(sorted(opts.items()))
    if name == "weihai":
        return RuleSet(
            name=name, options=frozen_options,
            deck=build_deck(**_FOUR_DECKS_6_UP, marked=("BJ*", "SJ*"), removed=("6S", "6H", "6C")),
            can_decline=False, can_transfer=True, selection_solo="always",
            solo_window=True, declaration_window=True, rebel_allowed=True, kick_window=True,
            must_last=6, scoring="weihai",
        )
    if name in ("lianzhong_simple", "lianzhong_classic"):
        simple = name == "lianzhong_simple"
        return RuleSet(
            name=name, options=frozen_options,
            deck=build_deck(**_FOUR_DECKS_6_UP, marked=("BJ*", "SJ*") if simple else ("BJ*",)),
            attach_on_decline="two_or_highest" if simple else "none",
            void_after_declines=10, forced_after_declines=None if simple else 5,
            forced_spares_four=not simple,
            selection_solo=("with_guard_card_or_qiangdu" if opts["qiangdu"] else "with_guard_card")
            if simple else "always",
            guard_mode="fixed" if simple else "called",
            call_mode=None if simple else "classic", call_solo_open=not simple,
            solo_window=opts["qiangdu"], declaration_window=True, rebel_allowed=simple,
            must_last=opts["must_last"], roasting=opts["roasting"], scoring="lianzhong",
        )
    if name == "wuren":
        return RuleSet(
            name=name, options=frozen_options,
            deck=build_deck(ranks="3456789TJQKA2", jokers=4, marked=("BJ*",)),
            aside_card="BJ*", candidate_mode="random", attach_on_decline="two_if_any",
            auto_decline_unable=True,
            void_after_declines=6, guard_mode="called", call_mode="wuren", call_solo_shows_four=True,
            scoring="wuren", tribute="wuren", tribute_jokers=True,
        )
    if name == "campus":
        return RuleSet(
            name=name, options=frozen_options,
            deck=build_deck(ranks="456789TJQKA2", jokers=4, marked=("BJ*",),
                            extra=("3S", "3H", "3C", "3D", "3S")),
            decline_direction=+1, attach_on_decline="two_required",
            guard_mode="called", call_mode="campus", declaration_window=True,
            must_last=rank_value("3"), twos_carry_no_jokers=True, bombs=True, guard_card_super=True,
            scoring="campus", buy_three=True, match_deals=6,
        )
    if name == "laowang":
        return RuleSet(
            name=name, options=frozen_options,
            deck=build_deck(ranks="3456789TJQKA2", jokers=4, marked=("SJ*",)),
            aside_card="BJ", candidate_mode="turned", attach_on_decline="two_required",
            two_kill=True, twos_attach=True, guard_card_super=True,
            scoring="laowang", tribute="laowang", hide_counts_above=10,
        )
    # pagat: the Rizhao / JJ standard (docs/rules.md §3.7).
    return RuleSet(
        name=name, options=frozen_options,
        deck=build_deck(**_FOUR_DECKS_6_UP, marked=("BJ*", "SJ*")),
        decline_direction=+1, forced_after_declines=5, selection_solo="with_guard_card",
        declaration_window=True, rebel_allowed=True, declaration_doubling="any",
        scoring="pagat", tribute="pagat", start_seat_moves=True,
    )
