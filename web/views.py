"""The client's one page: the document, its translated strings and the presets. No game data is
rendered here; the page reads everything from /api/v1/ like any other client (docs/web-client.md)."""

from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_safe

from games.engine import PRESETS

# The rule names keep their Chinese terms in both languages (docs/rules.md §3, §6).
PRESET_NAMES = {
    "weihai": _("威海保皇 (Weihai)"),
    "lianzhong_simple": _("联众 简明玩法 (Lianzhong, simple)"),
    "lianzhong_classic": _("联众 经典玩法 (Lianzhong, classic)"),
    "wuren": _("五人保皇 (216 cards)"),
    "campus": _("保皇比赛 (competition rules)"),
    "laowang": _("5人保皇最佳规则 (老王)"),
    "pagat": _("日照 / JJ standard (Pagat)"),
}
PRESET_RULES = {
    "weihai": _("165 cards, fixed guard, 憋6, 明独/独保/转让, 明保, 造反, 踢."),
    "lianzhong_simple": _("168 cards, fixed guard card, 让位 with a 2, 抢独, 明保, 造反; options 憋6, 烤牌."),
    "lianzhong_classic": _(
        "168 cards, the emperor calls a guard card, free 让位, 抢独, 明保; options 憋6, 烤牌."
    ),
    "wuren": _("216 cards, random emperor, called guard, 明独, team scoring, 进贡 tribute."),
    "campus": _("205 cards, five 3s, 憋三, buying a 3, called 特王 guard card, bombs, chips."),
    "laowang": _("216 cards, 老王 guard card beats a big joker, 2s attachable, tribute in 2s."),
    "pagat": _("168 cards, fixed guard, one declaration window, 2T/T/−T scoring, tribute."),
}

STRINGS = {
    "title": _("保皇 Bao Huang"),
    "play_guest": _("Play as a guest"),
    "log_in": _("Log in"),
    "log_out": _("Log out"),
    "register": _("Register"),
    "username": _("Username"),
    "password": _("Password"),
    "signed_in_as": _("Signed in as"),
    "preset": _("Rules"),
    "rules": _("Rules of this preset"),
    "quick_match": _("Quick match with bots"),
    "waiting_match": _("Finding a table…"),
    "cancel": _("Cancel"),
    "lobby": _("Open tables"),
    "lobby_empty": _("No open table."),
    "playing_tables": _("Tables in play"),
    "join": _("Sit down"),
    "watch": _("Watch"),
    "your_seats": _("Your tables"),
    "rejoin": _("Back to the table"),
    "seats_taken": _("seats taken"),
    "home": _("Home"),
    "your_turn": _("Your turn"),
    "waiting_for": _("Waiting for"),
    "deadline": _("seconds left"),
    "play": pgettext_lazy("action", "Play"),
    "clear": _("Clear"),
    "hint": _("Hint"),
    "trustee_back": _("Take my seat back from 托管"),
    "trustee": _("托管"),
    "bot": _("bot"),
    "cards": _("cards"),
    "final": _("The deal is over"),
    "void": _("Void deal: nobody became emperor"),
    "aborted": _("The deal was aborted"),
    "scores": _("Scores"),
    "hands_dealt": _("Hands as dealt"),
    "next_deal": _("Next deal"),
    "replay": _("Replay"),
    "replay_of": _("Replay of deal"),
    "step": _("Step"),
    "start": _("Start"),
    "back": _("Back"),
    "forward": _("Forward"),
    "to_end": _("End"),
    "spectating": _("You are watching"),
    "table_label": _("On the table"),
    "nothing": _("nothing"),
    "multiplier": _("Multiplier"),
    "place_1": _("1st place"),
    "place_2": _("2nd place"),
    "place_3": _("3rd place"),
    "place_4": _("4th place"),
    "place_5": _("5th place"),
    "actions": _("Your answers"),
    "trustee_banner": _("托管: the server is playing your seat."),
    "pass_confirm": _("Press p again to pass."),
    "player": _("Player"),
    "role": _("Role"),
    "totals": _("Table total"),
    "score_note": _(
        "Each seat's score for this deal, by the preset's rules: the winners gain what the losers lose, "
        "times the deal's multiplier."
    ),
    "table_closed": _("The table has closed:"),
    "closed_finished": _("its deals were played."),
    "closed_player_left": _("a seat was empty at the end of a deal."),
    "closed_trustee": _("a seat was still on 托管 at the end of a deal."),
    "closed_void_limit": _("too many void deals in a row."),
    "closed_aborted": _("a moderator aborted its deal."),
    "closed_no_humans": _("only bots were left at the table."),
    "seconds": _("s"),
    # A card's name for screen readers (web/static/web/cards.js cardName).
    "card_format": _("{rank} of {suit}"),
    "suit_S": _("spades"),
    "suit_H": _("hearts"),
    "suit_C": _("clubs"),
    "suit_D": _("diamonds"),
    "marked_card": _("the guard's card"),
    "called_card": _("the called card"),
    "report": _("Report a player to the moderators"),
    "report_reason": _("Reason"),
    "report_text": _("What happened (optional)"),
    "report_send": _("Send the report"),
    "report_sent": _("Thank you: the moderators will look at this deal."),
    "report_cheating": _("Cheating"),
    "report_collusion": _("Collusion (串牌)"),
    "report_abuse": _("Abuse"),
    "report_stalling": _("Stalling"),
    "report_other": _("Something else"),
    "create_table": _("Create a table"),
    "private_table": _("Private (by invitation only)"),
    "invite_link": _("Invitation link: send it to the players you want"),
    "waiting_players": _("Seated: waiting for five players…"),
    "username_rules": _("Letters, digits and . @ + - _ only; at most 150 characters."),
    "password_rules": _("At least 8 characters."),
    "cancelled": _("The search was cancelled."),
    "playing_empty": _("No table in play."),
    "no_seats": _("You sit at no table."),
    "connection_lost": _("Connection lost, reconnecting…"),
    "language": _("Language"),
    "phase": _("Phase"),
    "your_hand": _("Your hand"),
    "waiting_deal": _("Waiting for the next deal…"),
    "not_legal": _("Those cards are not a play you may make now."),
    # Notifications in this browser (web/static/web/push.js).
    "push_toggle": _("Notify me in this browser (a match found, my turn, an invitation)"),
    "push_on": _("Notifications are on in this browser."),
    "push_off": _("Notifications are off in this browser."),
    "push_denied": _("This browser blocks notifications from this site: allow them in its settings."),
    # Phases (docs/rules.md §2).
    "phase_emperor_selection": _("Choosing the emperor (登基)"),
    "phase_call": _("Calling the guard card"),
    "phase_solo_window": _("明独 window"),
    "phase_declaration_window": _("明保 / 造反 window"),
    "phase_kick_window": _("踢 window"),
    "phase_play": _("Play"),
    "phase_over": _("Over"),
    "phase_void": _("Void"),
    # Roles (docs/rules.md §6).
    "role_emperor": _("皇帝 emperor"),
    "role_guard": _("保子 guard"),
    "role_soloist": _("独 soloist"),
    "role_commoner": _("百姓 commoner"),
    # Actions (docs/rules.md §6), with the players' terms.
    "action_accept": _("登基 accept"),
    "action_decline": _("让位 decline"),
    "action_transfer": _("转让 transfer"),
    "action_solo": _("独 solo"),
    "action_call": _("叫 call"),
    "action_reveal": _("明保 reveal"),
    "action_rebel": _("造反 rebel"),
    "action_kick": _("踢 kick"),
    "action_stay": _("不表态 stay"),
    "action_play": _("出牌 play"),
    "action_pass": _("过 pass"),
}


@require_safe
def client_page(request, game_id: int | None = None, table_id: int | None = None):
    return render(
        request,
        "web/client.html",
        {
            "strings": {key: str(value) for key, value in STRINGS.items()},
            "presets": [
                {"id": name, "name": str(PRESET_NAMES[name]), "rules": str(PRESET_RULES[name])}
                for name in PRESETS
            ],
        },
    )
