"""A finding's message in the page's language.

The audit report keeps every finding's message in English: it is part of the report's
contract (docs/log-format.md). The pages show it translated: :func:`localize` reads the
English message of a finding (the engine's wording is stable) into its values (players,
cards, numbers, parameter settings) and says the same in Hebrew, Russian, German or
Korean.

Each message is matched whole by one :data:`MESSAGES` pattern. A group whose name ends
in ``_p`` is itself a phrase (why a throw is illegal, where a card is), translated by
the :data:`PHRASES` patterns in turn; a group ending in ``_or`` is a list joined by
" or " (joined again by the language's word); a group ending in ``_w`` is a value or
one of the few English words of :data:`WORDS` ("nothing", "nobody"). Every other group
is a value, kept as written. A message no pattern reads is shown in English as written
(tests/test_finding_text.py proves every message the engine writes is read).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LANGS = ("he", "ru", "de", "ko")
_CARD = r"(?:[A23456789TJQK][CDHS]|JK|\?\?)"
_CARDS = rf"{_CARD}(?: {_CARD})*"


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    says: Mapping[str, str]  # language -> template with {group} places


def _p(regex: str, he: str, ru: str, de: str, ko: str) -> Pattern:
    expanded = regex.replace("<CARDS>", _CARDS).replace("<CARD>", _CARD)
    return Pattern(re.compile(expanded, re.DOTALL), {"he": he, "ru": ru, "de": de, "ko": ko})


#: value words the engine writes in place of a value
WORDS: dict[str, dict[str, str]] = {
    "nothing": {"he": "כלום", "ru": "ничего", "de": "nichts", "ko": "아무것도"},
    "empty": {"he": "ריקה", "ru": "пусто", "de": "leer", "ko": "비어 있음"},
    "none": {"he": "אין", "ru": "нет", "de": "keiner", "ko": "없음"},
    "no caller": {"he": "אף קורא", "ru": "никого из объявивших", "de": "keinen Ansager",
                  "ko": "호출자 없음"},
    "nobody": {"he": "אף אחד", "ru": "никто", "de": "niemand", "ko": "아무도"},
    "cards": {"he": "קלפים", "ru": "карты", "de": "Karten", "ko": "카드"},
    "already taken": {"he": "כבר נלקח", "ru": "уже взята", "de": "schon genommen",
                      "ko": "이미 가져감"},
}
OR = {"he": " או ", "ru": " или ", "de": " oder ", "ko": " 또는 "}

S = r"(?P<p>.+?)"  # a player's name

#: whole messages, by the code that writes them (the more specific first)
MESSAGES: dict[str, list[Pattern]] = {
    "game.over": [_p(
        r"the game was over after round (?P<r>\d+) \((?P<names>.+) won\); later events do not "
        r"count",
        "המשחק הסתיים אחרי סיבוב {r} ({names} ניצחו); מהלכים מאוחרים יותר אינם נחשבים",
        "игра закончилась после раунда {r} (победили: {names}); дальнейшие ходы не считаются",
        "das Spiel war nach Runde {r} vorbei (gewonnen: {names}); spätere Ereignisse zählen "
        "nicht",
        "게임은 {r}라운드 후에 끝났습니다 ({names} 승리); 이후의 기록은 무효입니다")],
    "deal.hand_size": [_p(
        rf"{S} was dealt (?P<n>\d+) cards; (?P<k>hand_size=\d+)",
        "{p} קיבל {n} קלפים בחלוקה; {k}",
        "{p} получил при раздаче {n} карт; {k}",
        "{p} bekam {n} Karten ausgeteilt; {k}",
        "{p}에게 {n}장이 배분되었습니다; {k}")],
    "deal.starter": [_p(
        rf"{S} opened round (?P<r>\d+), but (?P<q_or>.+) should have: (?P<why_p>.+) "
        r"\((?P<s>starter=\w+)\)",
        "{p} פתח את סיבוב {r}, אבל היה צריך לפתוח {q_or}: {why_p} ({s})",
        "{p} начал раунд {r}, но начинать должен был {q_or}: {why_p} ({s})",
        "{p} eröffnete Runde {r}, aber {q_or} hätte eröffnen sollen: {why_p} ({s})",
        "{p}이(가) {r}라운드를 시작했지만 {q_or}이(가) 시작했어야 합니다: {why_p} ({s})")],
    "log.withdraw": [
        _p(r"the withdrawal takes nothing back: it names (?P<s>\d+) twice",
           "הביטול אינו מבטל דבר: הוא מציין את {s} פעמיים",
           "отмена ничего не отменяет: она называет {s} дважды",
           "die Rücknahme nimmt nichts zurück: sie nennt {s} zweimal",
           "취소가 아무것도 되돌리지 않습니다: {s}을(를) 두 번 적었습니다"),
        _p(r"the withdrawal takes nothing back: it names itself",
           "הביטול אינו מבטל דבר: הוא מציין את עצמו",
           "отмена ничего не отменяет: она называет саму себя",
           "die Rücknahme nimmt nichts zurück: sie nennt sich selbst",
           "취소가 아무것도 되돌리지 않습니다: 자기 자신을 적었습니다"),
        _p(r"the withdrawal takes nothing back: (?P<s>\d+) comes after it",
           "הביטול אינו מבטל דבר: {s} בא אחריו",
           "отмена ничего не отменяет: {s} идёт после неё",
           "die Rücknahme nimmt nichts zurück: {s} kommt nach ihr",
           "취소가 아무것도 되돌리지 않습니다: {s}은(는) 취소보다 뒤에 있습니다"),
        _p(r"the withdrawal takes nothing back: (?P<s>\d+) was already taken back "
           r"\(by (?P<b>\d+)\)",
           "הביטול אינו מבטל דבר: {s} כבר בוטל (על ידי {b})",
           "отмена ничего не отменяет: {s} уже отменено (записью {b})",
           "die Rücknahme nimmt nichts zurück: {s} wurde schon zurückgenommen (von {b})",
           "취소가 아무것도 되돌리지 않습니다: {s}은(는) 이미 취소되었습니다 ({b})"),
        _p(r"the withdrawal takes nothing back: (?P<s>\d+) is a (?P<k>note|withdraw|"
           r"game_started), not an entry",
           "הביטול אינו מבטל דבר: {s} הוא {k}, לא רישום",
           "отмена ничего не отменяет: {s} это {k}, а не запись",
           "die Rücknahme nimmt nichts zurück: {s} ist ein {k}, kein Eintrag",
           "취소가 아무것도 되돌리지 않습니다: {s}은(는) 기록이 아니라 {k}입니다"),
        _p(r"the withdrawal takes nothing back: it names (?P<s>[\d, ]+), but the latest "
           r"(?:\d+ entries still standing are|entry still standing is) (?P<l_w>[\d, ]+|none)",
           "הביטול אינו מבטל דבר: הוא מציין את {s}, אבל הרישומים האחרונים שעדיין עומדים "
           "הם {l_w}",
           "отмена ничего не отменяет: она называет {s}, но последние действующие записи: "
           "{l_w}",
           "die Rücknahme nimmt nichts zurück: sie nennt {s}, aber die letzten noch "
           "stehenden Einträge sind {l_w}",
           "취소가 아무것도 되돌리지 않습니다: {s}을(를) 적었지만 아직 유효한 마지막 기록은 "
           "{l_w}입니다")],
    "player.out": [_p(
        rf"{S} is out \(score (?P<s>\d+), (?P<l>score_limit=\d+), (?P<lr>limit_rule=\w+)\) "
        r"but still takes part in round (?P<r>\d+)",
        "{p} בחוץ (ניקוד {s}, {l}, {lr}) אבל עדיין משתתף בסיבוב {r}",
        "{p} выбыл (очки {s}, {l}, {lr}), но всё ещё участвует в раунде {r}",
        "{p} ist ausgeschieden (Punkte {s}, {l}, {lr}), spielt aber in Runde {r} noch mit",
        "{p}은(는) 탈락했지만 (점수 {s}, {l}, {lr}) {r}라운드에 여전히 참여합니다")],
    "turn.order": [
        _p(r"round (?P<r>\d+) is over; moves before the next round_started do not count",
           "סיבוב {r} הסתיים; מהלכים לפני round_started הבא אינם נחשבים",
           "раунд {r} окончен; ходы до следующего round_started не считаются",
           "Runde {r} ist vorbei; Züge vor dem nächsten round_started zählen nicht",
           "{r}라운드는 끝났습니다; 다음 round_started 전의 수는 무효입니다"),
        _p(r"it was (?P<a>.+?)'s turn, not (?P<b>.+)'s",
           "זה היה התור של {a}, לא של {b}",
           "был ход {a}, а не {b}",
           "{a} war am Zug, nicht {b}",
           "{b}이(가) 아니라 {a}의 차례였습니다")],
    "slap.not_allowed": [
        _p(rf"{S} slapped before drawing; a slap follows a stock draw",
           "{p} הטיח קלף לפני שמשך; הטחה באה אחרי משיכה מהקופה",
           "{p} подкинул карту до того, как взял; подкидывают только после взятия из колоды",
           "{p} legte vor dem Ziehen nach; Nachlegen folgt auf einen Zug vom Stapel",
           "{p}이(가) 뽑기 전에 슬랩했습니다; 슬랩은 더미에서 뽑은 뒤에만 합니다"),
        _p(rf"{S} slapped (?P<c><CARD>) out of turn; a slap may only follow one's own draw "
           r"from the stock",
           "{p} הטיח {c} שלא בתורו; מותר להטיח רק אחרי משיכה שלך מהקופה",
           "{p} подкинул {c} не в свой ход; подкинуть можно только после своего взятия из "
           "колоды",
           "{p} legte {c} außer der Reihe nach; nachlegen darf man nur nach dem eigenen Zug "
           "vom Stapel",
           "{p}이(가) 차례가 아닌데 {c}을(를) 슬랩했습니다; 슬랩은 자기가 더미에서 뽑은 뒤에만 "
           "할 수 있습니다"),
        _p(rf"{S} slapped (?P<c><CARD>), but (?P<k>slap_down=false)",
           "{p} הטיח {c}, אבל {k}",
           "{p} подкинул {c}, но {k}",
           "{p} legte {c} nach, aber {k}",
           "{p}이(가) {c}을(를) 슬랩했지만 {k}입니다"),
        _p(rf"{S} slapped (?P<c><CARD>); a slap may only follow one's own draw from the "
           r"stock \((?P<k>slap_down=true)\)",
           "{p} הטיח {c}; מותר להטיח רק אחרי משיכה שלך מהקופה ({k})",
           "{p} подкинул {c}; подкинуть можно только после своего взятия из колоды ({k})",
           "{p} legte {c} nach; nachlegen darf man nur nach dem eigenen Zug vom Stapel ({k})",
           "{p}이(가) {c}을(를) 슬랩했습니다; 슬랩은 자기가 더미에서 뽑은 뒤에만 할 수 "
           "있습니다 ({k})"),
        _p(rf"{S} slapped (?P<c><CARD>), which is not the card just drawn \((?P<d><CARDS>)\); "
           r"only the card just drawn from the stock may be slapped",
           "{p} הטיח {c}, שאינו הקלף שנמשך זה עתה ({d}); מותר להטיח רק את הקלף שנמשך מהקופה",
           "{p} подкинул {c}, а не только что взятую карту ({d}); подкинуть можно только "
           "карту, только что взятую из колоды",
           "{p} legte {c} nach, nicht die eben gezogene Karte ({d}); nur die eben vom Stapel "
           "gezogene Karte darf nachgelegt werden",
           "{p}이(가) 방금 뽑은 카드({d})가 아닌 {c}을(를) 슬랩했습니다; 더미에서 방금 뽑은 "
           "카드만 슬랩할 수 있습니다")],
    "yaniv.timing": [
        _p(rf"{S} called Yaniv after (?P<what_p>throwing|drawing); Yaniv is called only at the "
           r"start of one's turn, before throwing",
           "{p} קרא יניב אחרי ש{what_p}; קוראים יניב רק בתחילת התור, לפני הזריקה",
           "{p} объявил Янив после того, как {what_p}; Янив объявляют только в начале своего "
           "хода, до сброса",
           "{p} rief Yaniv nach dem {what_p}; Yaniv ruft man nur zu Beginn des eigenen Zuges, "
           "vor dem Abwerfen",
           "{p}이(가) {what_p} 뒤에 야니브를 외쳤습니다; 야니브는 자기 차례의 시작, 버리기 전에만 "
           "외칠 수 있습니다")],
    "turn.no_throw": [_p(
        rf"{S} drew without throwing first",
        "{p} משך בלי לזרוק קודם", "{p} взял карту, ничего не сбросив",
        "{p} zog, ohne vorher abzuwerfen", "{p}이(가) 먼저 버리지 않고 뽑았습니다")],
    "turn.no_draw": [_p(
        rf"{S} threw (?P<c_w><CARDS>|cards) but did not draw",
        "{p} זרק {c_w} אבל לא משך", "{p} сбросил {c_w}, но не взял карту",
        "{p} warf {c_w} ab, zog aber nicht", "{p}이(가) {c_w}을(를) 버렸지만 뽑지 않았습니다")],
    "discard.combo": [_p(
        rf"{S} threw (?P<reading_p>.+)",
        "{p} זרק {reading_p}", "{p} сбросил {reading_p}", "{p} warf {reading_p}",
        "{p}이(가) 버린 것: {reading_p}")],
    "draw.pile_needs_combo": [_p(
        rf"{S} drew from the pile after throwing (?P<n>\d+) cards? \((?P<k>pile_needs_combo="
        r"true)\)",
        "{p} משך מהערימה אחרי שזרק {n} קלפים ({k})",
        "{p} взял из сброса, сбросив карт: {n} ({k})",
        "{p} zog vom Ablagestapel, nachdem er {n} Karte(n) abgeworfen hatte ({k})",
        "{p}이(가) {n}장을 버린 뒤 버림패에서 뽑았습니다 ({k})")],
    "draw.pile_card": [
        _p(rf"{S} took (?P<c><CARD>) from the middle of (?P<layer><CARDS>); only "
           r"(?P<ends_or><CARDS>(?: or <CARDS>)*) may be taken \((?P<k>pickup=\w+)\)",
           "{p} לקח {c} מאמצע {layer}; מותר לקחת רק {ends_or} ({k})",
           "{p} взял {c} из середины {layer}; взять можно только {ends_or} ({k})",
           "{p} nahm {c} aus der Mitte von {layer}; nur {ends_or} darf genommen werden ({k})",
           "{p}이(가) {layer}의 가운데에서 {c}을(를) 가져갔습니다; {ends_or}만 가져갈 수 "
           "있습니다 ({k})"),
        _p(rf"{S} took (?P<c><CARD>) back from their own throw; a draw comes from the previous "
           r"player's throw",
           "{p} לקח בחזרה את {c} מהזריקה של עצמו; מושכים מהזריקה של השחקן הקודם",
           "{p} забрал {c} из собственного сброса; брать можно только из сброса предыдущего "
           "игрока",
           "{p} nahm {c} aus dem eigenen Abwurf zurück; gezogen wird aus dem Abwurf des "
           "vorigen Spielers",
           "{p}이(가) 자기가 버린 패에서 {c}을(를) 다시 가져갔습니다; 앞 사람이 버린 패에서만 "
           "가져갈 수 있습니다"),
        _p(rf"{S} took (?P<c><CARD>) from an older throw \((?P<layer><CARDS>)\); only the "
           r"previous throw \((?P<prev_w><CARDS>|none)\) may be taken from",
           "{p} לקח {c} מזריקה ישנה יותר ({layer}); מותר לקחת רק מהזריקה הקודמת ({prev_w})",
           "{p} взял {c} из более раннего сброса ({layer}); брать можно только из предыдущего "
           "сброса ({prev_w})",
           "{p} nahm {c} aus einem älteren Abwurf ({layer}); genommen werden darf nur aus dem "
           "vorigen Abwurf ({prev_w})",
           "{p}이(가) 더 오래된 버림패({layer})에서 {c}을(를) 가져갔습니다; 직전에 버린 패"
           "({prev_w})에서만 가져갈 수 있습니다"),
        _p(rf"{S} took (?P<c><CARD>) as the upcard from under a later throw "
           r"\((?P<layer><CARDS>)\); only the previous throw \((?P<prev_w><CARDS>|none)\) may be "
           r"taken from",
           "{p} לקח {c} כקלף הפתוח מתחת לזריקה מאוחרת יותר ({layer}); מותר לקחת רק מהזריקה "
           "הקודמת ({prev_w})",
           "{p} взял {c} как открытую карту из-под более позднего сброса ({layer}); брать "
           "можно только из предыдущего сброса ({prev_w})",
           "{p} nahm {c} als aufgedeckte Karte unter einem späteren Abwurf ({layer}) hervor; "
           "genommen werden darf nur aus dem vorigen Abwurf ({prev_w})",
           "{p}이(가) 나중에 버린 패({layer}) 밑에서 {c}을(를) 펼쳐진 패로 가져갔습니다; 직전에 "
           "버린 패({prev_w})에서만 가져갈 수 있습니다")],
    "draw.swap": [
        _p(rf"{S} swapped (?P<a><CARD>) for (?P<b><CARD>) of an older throw \((?P<layer><CARDS>)"
           r"\); a swap takes the joker from the previous throw only \((?P<prev_p>.+)\)",
           "{p} החליף {a} תמורת {b} מזריקה ישנה יותר ({layer}); החלפה לוקחת את הג'וקר רק "
           "מהזריקה הקודמת ({prev_p})",
           "{p} обменял {a} на {b} из более раннего сброса ({layer}); обмен берёт джокера "
           "только из предыдущего сброса ({prev_p})",
           "{p} tauschte {a} gegen {b} aus einem älteren Abwurf ({layer}); ein Tausch nimmt den "
           "Joker nur aus dem vorigen Abwurf ({prev_p})",
           "{p}이(가) 더 오래된 버림패({layer})의 {b}을(를) {a}와(과) 바꿨습니다; 조커 교환은 "
           "직전에 버린 패에서만 할 수 있습니다 ({prev_p})"),
        _p(rf"{S} swapped (?P<a><CARD>) for (?P<b><CARD>), but (?P<k>joker_swap=false)",
           "{p} החליף {a} תמורת {b}, אבל {k}",
           "{p} обменял {a} на {b}, но {k}",
           "{p} tauschte {a} gegen {b}, aber {k}",
           "{p}이(가) {a}을(를) {b}와(과) 바꿨지만 {k}입니다"),
        _p(rf"{S} swapped (?P<a><CARD>) for (?P<b><CARD>): (?P<why_p>.+)",
           "{p} החליף {a} תמורת {b}: {why_p}",
           "{p} обменял {a} на {b}: {why_p}",
           "{p} tauschte {a} gegen {b}: {why_p}",
           "{p}이(가) {a}을(를) {b}와(과) 바꿨습니다: {why_p}"),
        _p(rf"{S} drew from the stock and swapped (?P<a><CARD>); a joker swap takes the joker "
           r"from the pile in place of the draw, so it is not made with a stock draw \(the "
           r"swap does not count\)",
           "{p} שלף מהקופה והחליף {a}; החלפת ג'וקר לוקחת את הג'וקר מהערימה במקום השליפה, "
           "ולכן אינה נעשית עם שליפה מהקופה (ההחלפה אינה נחשבת)",
           "{p} взял карту из колоды и обменял {a}; обмен джокера забирает джокера из сброса "
           "вместо взятия карты, поэтому с колодой он не делается (обмен не засчитан)",
           "{p} zog vom Stapel und tauschte {a}; ein Jokertausch nimmt den Joker vom "
           "Ablagestapel anstelle des Ziehens und geht daher nicht mit einem Zug vom Stapel "
           "(der Tausch zählt nicht)",
           "{p}이(가) 더미에서 뽑고 {a}을(를) 교환했습니다; 조커 교환은 뽑는 대신 버림패에서 "
           "조커를 가져오는 것이므로 더미에서 뽑을 때는 할 수 없습니다 (교환은 인정되지 "
           "않습니다)")],
    "slap.no_match": [_p(
        rf"{S} slapped (?P<c><CARD>), which does not extend (?P<layer><CARDS>) "
        r"\((?P<a>set_max=\d+), (?P<b>run_max=(?:\d+|null))\)",
        "{p} הטיח {c}, שאינו מאריך את {layer} ({a}, {b})",
        "{p} подкинул {c}, который не продолжает {layer} ({a}, {b})",
        "{p} legte {c} nach, das {layer} nicht verlängert ({a}, {b})",
        "{p}이(가) {layer}에 이어지지 않는 {c}을(를) 슬랩했습니다 ({a}, {b})")],
    "slap.empties_hand": [_p(
        rf"{S} slapped their last card; a slap may not empty the hand",
        "{p} הטיח את הקלף האחרון שלו; הטחה אינה יכולה לרוקן את היד",
        "{p} подкинул свою последнюю карту; подкидывание не может опустошить руку",
        "{p} legte die letzte Karte nach; Nachlegen darf die Hand nicht leeren",
        "{p}이(가) 마지막 카드를 슬랩했습니다; 슬랩으로 손패를 비울 수 없습니다")],
    "yaniv.threshold": [_p(
        rf"{S} called Yaniv at (?P<t>\d+) \((?P<cards><CARDS>|)\); (?P<k>yaniv_max=\d+)",
        "{p} קרא יניב עם {t} ({cards}); {k}",
        "{p} объявил Янив при {t} ({cards}); {k}",
        "{p} rief Yaniv bei {t} ({cards}); {k}",
        "{p}이(가) {t}점에서 야니브를 외쳤습니다 ({cards}); {k}")],
    "claim.yaniv_total": [
        _p(rf"{S} announced (?P<a>\d+), but the showdown's (?P<cards><CARDS>) makes (?P<t>\d+)",
           "{p} הכריז {a}, אבל {cards} שבחשיפה עושים {t}",
           "{p} объявил {a}, но показанные {cards} дают {t}",
           "{p} meldete {a}, aber die aufgedeckten {cards} ergeben {t}",
           "{p}이(가) {a}점이라고 했지만 공개된 {cards}은(는) {t}점입니다"),
        _p(rf"{S} announced (?P<a>\d+), but (?P<cards><CARDS>) makes (?P<t>\d+)",
           "{p} הכריז {a}, אבל {cards} עושים {t}",
           "{p} объявил {a}, но {cards} дают {t}",
           "{p} meldete {a}, aber {cards} ergeben {t}",
           "{p}이(가) {a}점이라고 했지만 {cards}은(는) {t}점입니다")],
    "reshuffle.not_allowed": [
        _p(r"the pile was reshuffled, but (?P<k>reshuffle=round_ends): the round ends when the "
           r"stock runs out",
           "הערימה נטרפה מחדש, אבל {k}: הסיבוב נגמר כשהקופה נגמרת",
           "сброс перетасовали, но {k}: раунд кончается, когда кончается колода",
           "der Ablagestapel wurde neu gemischt, aber {k}: die Runde endet, wenn der Stapel "
           "leer ist",
           "버림패를 다시 섞었지만 {k}입니다: 더미가 떨어지면 라운드가 끝납니다"),
        _p(r"the pile was reshuffled after round (?P<r>\d+) was over; a reshuffle comes only "
           r"when the stock runs out during play",
           "הערימה נטרפה מחדש אחרי שסיבוב {r} הסתיים; טורפים רק כשהקופה נגמרת במהלך המשחק",
           "сброс перетасовали после окончания раунда {r}; тасуют только когда колода "
           "кончается во время игры",
           "der Ablagestapel wurde nach dem Ende von Runde {r} neu gemischt; gemischt wird nur, "
           "wenn der Stapel im Spiel leer wird",
           "{r}라운드가 끝난 뒤에 버림패를 다시 섞었습니다; 다시 섞기는 게임 중 더미가 떨어졌을 "
           "때만 합니다"),
        _p(r"the pile was reshuffled while the stock still held (?P<n>\d+) cards?",
           "הערימה נטרפה מחדש כשבקופה נשארו עוד {n} קלפים",
           "сброс перетасовали, когда в колоде ещё оставалось карт: {n}",
           "der Ablagestapel wurde neu gemischt, als der Stapel noch {n} Karte(n) hatte",
           "더미에 아직 {n}장이 남아 있는데 버림패를 다시 섞었습니다")],
    "showdown.no_caller": [
        _p(r"the showdown names no caller, but only (?P<k>reshuffle=round_ends) ends a round "
           r"without a Yaniv",
           "החשיפה אינה מציינת קורא, אבל רק {k} מסיים סיבוב בלי יניב",
           "при вскрытии не назван объявивший, но только {k} заканчивает раунд без Янива",
           "die Aufdeckung nennt keinen Ansager, aber nur {k} beendet eine Runde ohne Yaniv",
           "공개에 호출자가 없지만 야니브 없이 라운드를 끝내는 것은 {k}뿐입니다"),
        _p(r"the showdown names no caller, but the stock still holds (?P<n>\d+) cards?: under "
           r"(?P<k>reshuffle=round_ends) only an exhausted stock ends a round without a Yaniv",
           "החשיפה אינה מציינת קורא, אבל בקופה נשארו עוד {n} קלפים: לפי {k} רק קופה שנגמרה "
           "מסיימת סיבוב בלי יניב",
           "при вскрытии не назван объявивший, но в колоде ещё карт: {n}; при {k} раунд без "
           "Янива кончается только с пустой колодой",
           "die Aufdeckung nennt keinen Ansager, aber der Stapel hat noch {n} Karte(n): mit {k} "
           "beendet nur ein leerer Stapel eine Runde ohne Yaniv",
           "공개에 호출자가 없지만 더미에 아직 {n}장이 남아 있습니다: {k}에서는 더미가 떨어져야만 "
           "야니브 없이 라운드가 끝납니다")],
    "claim.showdown": [
        _p(rf"the showdown shows no hand for {S}, who is still in",
           "החשיפה אינה מראה יד של {p}, שעדיין במשחק",
           "при вскрытии нет руки {p}, хотя он ещё в игре",
           "die Aufdeckung zeigt keine Hand von {p}, der noch im Spiel ist",
           "공개에 아직 게임에 남은 {p}의 손패가 없습니다"),
        _p(rf"the showdown shows no hand for {S}",
           "החשיפה אינה מראה יד של {p}",
           "при вскрытии нет руки {p}",
           "die Aufdeckung zeigt keine Hand von {p}",
           "공개에 {p}의 손패가 없습니다"),
        _p(r"the showdown names (?P<c>.+?) as the caller, but (?P<r>.+) called Yaniv",
           "החשיפה מציינת את {c} כקורא, אבל {r} קרא יניב",
           "при вскрытии объявившим назван {c}, но Янив объявил {r}",
           "die Aufdeckung nennt {c} als Ansager, aber {r} rief Yaniv",
           "공개에는 {c}이(가) 호출자로 되어 있지만 야니브를 외친 것은 {r}입니다"),
        _p(r"the showdown names (?P<c_w>.+?), but (?P<r_w>.+) ended the round",
           "החשיפה מציינת את {c_w}, אבל {r_w} סיים את הסיבוב",
           "при вскрытии назван {c_w}, но раунд закончил {r_w}",
           "die Aufdeckung nennt {c_w}, aber {r_w} beendete die Runde",
           "공개에는 {c_w}(으)로 되어 있지만 라운드를 끝낸 것은 {r_w}입니다"),
        _p(rf"{S} showed (?P<a_w><CARDS>|nothing), but holds (?P<b_w><CARDS>|nothing)",
           "{p} הראה {a_w}, אבל מחזיק {b_w}",
           "{p} показал {a_w}, но на руках {b_w}",
           "{p} zeigte {a_w}, hält aber {b_w}",
           "{p}이(가) {a_w}을(를) 보여줬지만 가진 패는 {b_w}입니다")],
    "claim.points": [_p(
        rf"{S} was written down for (?P<w>-?\d+) points in round (?P<r>\d+); the rules give "
        r"(?P<right>-?\d+)(?P<why_p>.*)",
        "ל־{p} נרשמו {w} נקודות בסיבוב {r}; לפי הכללים {right}{why_p}",
        "{p} записали {w} очков в раунде {r}; по правилам {right}{why_p}",
        "{p} wurden in Runde {r} {w} Punkte aufgeschrieben; die Regeln ergeben {right}{why_p}",
        "{p}의 {r}라운드 점수가 {w}점으로 적혔습니다; 규칙으로는 {right}점{why_p}")],
    "claim.scores": [_p(
        r"(?P<p>.+?)'s score (?P<when_p>after round \d+|at the end) was written as "
        r"(?P<v>-?\d+); the rules give (?P<right>-?\d+)(?P<red_p>.*)",
        "הניקוד של {p} {when_p} נרשם כ־{v}; לפי הכללים {right}{red_p}",
        "счёт {p} {when_p} записан как {v}; по правилам {right}{red_p}",
        "der Stand von {p} {when_p} wurde als {v} aufgeschrieben; die Regeln ergeben "
        "{right}{red_p}",
        "{p}의 점수가 {when_p} {v}점으로 적혔습니다; 규칙으로는 {right}점{red_p}")],
    "claim.winner": [
        _p(r"the game was declared over, but under these rules it is not decided "
           r"\(scores: (?P<s>.*)\)",
           "המשחק הוכרז כגמור, אבל לפי הכללים האלה הוא עוד לא הוכרע (ניקוד: {s})",
           "игру объявили законченной, но по этим правилам она ещё не решена (счёт: {s})",
           "das Spiel wurde für beendet erklärt, ist nach diesen Regeln aber nicht entschieden "
           "(Stand: {s})",
           "게임이 끝났다고 선언했지만 이 규칙으로는 아직 승부가 나지 않았습니다 (점수: {s})"),
        _p(r"the table named (?P<a>.+?) as the winner; the rules give (?P<b>.+?) "
           r"\(scores: (?P<s>.*)\)",
           "השולחן הכריז על {a} כמנצח; לפי הכללים {b} (ניקוד: {s})",
           "за столом победителем назвали {a}; по правилам {b} (счёт: {s})",
           "der Tisch nannte {a} als Sieger; die Regeln ergeben {b} (Stand: {s})",
           "테이블은 {a}을(를) 승자로 정했지만 규칙으로는 {b}입니다 (점수: {s})")],
    "deal.too_big": [_p(
        r"(?P<n>\d+) hands of (?P<k>\d+) and an upcard need (?P<m>\d+) cards; the deck holds "
        r"(?P<d>\d+) \((?P<a>decks=\d+), (?P<j>jokers=\d+)\)",
        "{n} ידיים של {k} וקלף פתוח צריכים {m} קלפים; בחפיסה יש {d} ({a}, {j})",
        "{n} рук по {k} и открытая карта требуют {m} карт; в колоде {d} ({a}, {j})",
        "{n} Hände zu {k} und eine aufgedeckte Karte brauchen {m} Karten; das Spiel hat {d} "
        "({a}, {j})",
        "{k}장씩 {n}명의 손패와 펼친 카드 1장에는 {m}장이 필요한데 덱에는 {d}장뿐입니다 "
        "({a}, {j})")],
    "stock.mismatch": [
        _p(r"(?P<what_p>the recorded .+) \((?P<a>decks=\d+), (?P<j>jokers=\d+)\)",
           "{what_p} ({a}, {j})", "{what_p} ({a}, {j})", "{what_p} ({a}, {j})",
           "{what_p} ({a}, {j})"),
        _p(rf"{S} drew (?P<c><CARD>) from the stock, but its top card is (?P<t><CARD>)",
           "{p} משך {c} מהקופה, אבל הקלף העליון שלה הוא {t}",
           "{p} взял из колоды {c}, но её верхняя карта {t}",
           "{p} zog {c} vom Stapel, aber dessen oberste Karte ist {t}",
           "{p}이(가) 더미에서 {c}을(를) 뽑았지만 맨 위 카드는 {t}입니다"),
        _p(rf"{S} drew from the stock without naming the card, and the stock's order is "
           r"unknown to this replay",
           "{p} משך מהקופה בלי לציין את הקלף, וסדר הקופה אינו ידוע לשחזור הזה",
           "{p} взял из колоды, не назвав карту, а порядок колоды этому повтору неизвестен",
           "{p} zog vom Stapel, ohne die Karte zu nennen, und die Reihenfolge des Stapels "
           "kennt diese Wiedergabe nicht",
           "{p}이(가) 카드를 밝히지 않고 더미에서 뽑았고, 이 재생은 더미의 순서를 모릅니다"),
        _p(r"the reshuffled stock \((?P<a><CARDS>|)\) is not the pile below the last throw "
           r"\((?P<b><CARDS>|)\)",
           "הקופה שנטרפה ({a}) אינה הערימה שמתחת לזריקה האחרונה ({b})",
           "перетасованная колода ({a}) не совпадает со сбросом под последним ходом ({b})",
           "der neu gemischte Stapel ({a}) ist nicht der Ablagestapel unter dem letzten "
           "Abwurf ({b})",
           "다시 섞은 더미({a})가 마지막 버림 아래의 버림패({b})와 다릅니다")],
    "card.not_in_deck": [_p(
        r"(?P<where_p>the deal|the showdown) holds (?P<c><CARD>), which the deck does not "
        r"have \((?P<j>jokers=\d+)\)",
        "ב{where_p} יש {c}, שאין בחפיסה ({j})",
        "в {where_p} есть {c}, которой нет в колоде ({j})",
        "{where_p} enthält {c}, das es im Spiel nicht gibt ({j})",
        "{where_p}에 덱에 없는 {c}이(가) 있습니다 ({j})"),
        _p(rf"{S} names (?P<c><CARD>), which the deck does not have \((?P<j>jokers=\d+)\)",
           "{p} ציין את {c}, שאין בחפיסה ({j})",
           "{p} называет {c}, которой нет в колоде ({j})",
           "{p} nennt {c}, das es im Spiel nicht gibt ({j})",
           "{p}이(가) 덱에 없는 {c}을(를) 적었습니다 ({j})")],
    "card.too_many": [_p(
        r"(?P<where_p>the deal|the showdown) holds (?P<n>\d+) copies of (?P<c><CARD>); the "
        r"deck has (?P<m>\d+) \((?P<d>decks=\d+)\)",
        "ב{where_p} יש {n} עותקים של {c}; בחפיסה יש {m} ({d})",
        "в {where_p} {n} экземпляра {c}; в колоде их {m} ({d})",
        "{where_p} enthält {n}-mal {c}; das Spiel hat {m} ({d})",
        "{where_p}에 {c}이(가) {n}장 있습니다; 덱에는 {m}장뿐입니다 ({d})")],
    "card.not_in_hand": [_p(
        rf"{S} does not hold (?P<c><CARDS>) \(hand: (?P<h_w><CARDS>|empty)\)",
        "אין ל־{p} {c} (יד: {h_w})",
        "у {p} нет {c} (на руке: {h_w})",
        "{p} hält {c} nicht (Hand: {h_w})",
        "{p}에게 {c}이(가) 없습니다 (손패: {h_w})")],
    "stock.empty": [_p(
        rf"{S} drew from an empty stock",
        "{p} משך מקופה ריקה", "{p} взял из пустой колоды", "{p} zog vom leeren Stapel",
        "{p}이(가) 빈 더미에서 뽑았습니다")],
    "card.already_seen": [
        _p(rf"{S} took (?P<c><CARD>) as the upcard, but (?P<where_p>.+); the upcard is "
           r"(?P<u_w><CARDS>|already taken), the one card in no hand and not in the stock",
           "{p} לקח את {c} כקלף הפתוח, אבל {where_p}; הקלף הפתוח הוא {u_w}, הקלף היחיד שאינו "
           "באף יד ולא בקופה",
           "{p} взял {c} как открытую карту, но {where_p}; открытая карта {u_w}: единственная "
           "карта не на руках и не в колоде",
           "{p} nahm {c} als aufgedeckte Karte, aber {where_p}; die aufgedeckte Karte ist "
           "{u_w}, die eine Karte in keiner Hand und nicht im Stapel",
           "{p}이(가) {c}을(를) 펼친 카드로 가져갔지만 {where_p}; 펼친 카드는 어느 손패에도, "
           "더미에도 없는 한 장인 {u_w}입니다"),
        _p(rf"{S} took (?P<c><CARD>) as the upcard, but (?P<where_p>.+)",
           "{p} לקח את {c} כקלף הפתוח, אבל {where_p}",
           "{p} взял {c} как открытую карту, но {where_p}",
           "{p} nahm {c} als aufgedeckte Karte, aber {where_p}",
           "{p}이(가) {c}을(를) 펼친 카드로 가져갔지만 {where_p}"),
        _p(rf"{S} drew (?P<c><CARD>) from the stock, but (?P<where_p>.+)",
           "{p} משך {c} מהקופה, אבל {where_p}",
           "{p} взял из колоды {c}, но {where_p}",
           "{p} zog {c} vom Stapel, aber {where_p}",
           "{p}이(가) 더미에서 {c}을(를) 뽑았지만 {where_p}")],
    "card.not_on_pile": [
        _p(rf"{S} took (?P<c><CARD>) from the pile, but it is not there: (?P<where_p>.+) "
           r"\((?P<prev_p>(?:there is no|nothing is left of the|the previous throw is).*)\)",
           "{p} לקח {c} מהערימה, אבל הוא לא שם: {where_p} ({prev_p})",
           "{p} взял {c} из сброса, но её там нет: {where_p} ({prev_p})",
           "{p} nahm {c} vom Ablagestapel, aber es liegt nicht dort: {where_p} ({prev_p})",
           "{p}이(가) 버림패에서 {c}을(를) 가져갔지만 거기에 없습니다: {where_p} ({prev_p})"),
        _p(rf"{S} swapped (?P<a><CARD>) for (?P<b><CARD>), but it is not on the pile: "
           r"(?P<where_p>.+) \((?P<prev_p>(?:there is no|nothing is left of the|the previous "
           r"throw is).*)\)",
           "{p} החליף {a} תמורת {b}, אבל הוא לא בערימה: {where_p} ({prev_p})",
           "{p} обменял {a} на {b}, но её нет в сбросе: {where_p} ({prev_p})",
           "{p} tauschte {a} gegen {b}, aber es liegt nicht auf dem Ablagestapel: {where_p} "
           "({prev_p})",
           "{p}이(가) {a}을(를) {b}와(과) 바꿨지만 그 카드는 버림패에 없습니다: {where_p} "
           "({prev_p})")],
}

#: the phrases inside messages (a ``_p`` group): each tried in turn, matched whole
PHRASES: list[Pattern] = [
    # yaniv.timing
    _p(r"throwing", "זרק", "сбросил", "Abwerfen", "버린"),
    _p(r"drawing", "משך", "взял карту", "Ziehen", "뽑은"),
    # deal.starter
    _p(r"round (?P<r>\d+) was won by (?P<names>.+)",
       "את סיבוב {r} ניצחו {names}", "раунд {r} выиграл(и) {names}",
       "Runde {r} gewann(en) {names}", "{r}라운드 승자는 {names}입니다"),
    _p(rf"{S} called Yaniv in round (?P<r>\d+)",
       "{p} קרא יניב בסיבוב {r}", "{p} объявил Янив в раунде {r}",
       "{p} rief Yaniv in Runde {r}", "{p}이(가) {r}라운드에서 야니브를 외쳤습니다"),
    _p(rf"{S} opened round (?P<r>\d+)",
       "{p} פתח את סיבוב {r}", "{p} начинал раунд {r}", "{p} eröffnete Runde {r}",
       "{p}이(가) {r}라운드를 시작했습니다"),
    # claim.scores
    _p(r"after round (?P<r>\d+)", "אחרי סיבוב {r}", "после раунда {r}", "nach Runde {r}",
       "{r}라운드 후"),
    _p(r"at the end", "בסוף", "в конце", "am Ende", "마지막에"),
    _p(r"", "", "", "", ""),
    _p(r" \((?P<a>\d+) drops to (?P<b>\d+): reductions\)",
       " ({a} יורד ל־{b}: reductions)", " ({a} снижается до {b}: reductions)",
       " ({a} fällt auf {b}: reductions)", " ({a}점이 {b}점으로 내려갑니다: reductions)"),
    # claim.points
    _p(r" \(nothing ended round (?P<r>\d+): no Yaniv, showdown or exhausted stock, so nobody "
       r"scores\)",
       " (שום דבר לא סיים את סיבוב {r}: אין יניב, חשיפה או קופה שנגמרה, ולכן אף אחד לא "
       "מקבל נקודות)",
       " (раунд {r} ничем не закончился: ни Янива, ни вскрытия, ни пустой колоды, поэтому "
       "очков нет ни у кого)",
       " (nichts beendete Runde {r}: kein Yaniv, keine Aufdeckung, kein leerer Stapel, also "
       "punktet niemand)",
       " ({r}라운드는 야니브도, 공개도, 더미 소진도 없이 끝나지 않았으므로 아무도 점수를 받지 "
       "않습니다)"),
    _p(r" \(hand (?P<h>\d+) \+ (?P<n>\d+) Assafers x (?P<m>\d+) = (?P<t>\d+), "
       r"(?P<k>assaf_multi_penalty=\d+)\)",
       " (יד {h} + {n} אסףים x {m} = {t}, {k})",
       " (рука {h} + {n} Асафа x {m} = {t}, {k})",
       " (Hand {h} + {n} Assafer x {m} = {t}, {k})",
       " (손패 {h} + 아사프 {n}명 x {m} = {t}, {k})"),
    _p(r" \((?P<n>\d+) Assafers x (?P<m>\d+) = (?P<t>\d+), (?P<k>assaf_multi_penalty=\d+)\)",
       " ({n} אסףים x {m} = {t}, {k})", " ({n} Асафа x {m} = {t}, {k})",
       " ({n} Assafer x {m} = {t}, {k})", " (아사프 {n}명 x {m} = {t}, {k})"),
    _p(r" \(hand (?P<h>\d+) \+ Assaf penalty, (?P<k>assaf_penalty=\d+)\)",
       " (יד {h} + קנס אסף, {k})", " (рука {h} + штраф за Асаф, {k})",
       " (Hand {h} + Assaf-Strafe, {k})", " (손패 {h} + 아사프 벌점, {k})"),
    _p(r" \(Assaf penalty, (?P<k>assaf_penalty=\d+)\)",
       " (קנס אסף, {k})", " (штраф за Асаф, {k})", " (Assaf-Strafe, {k})",
       " (아사프 벌점, {k})"),
    _p(r" \(the caller scores 0\)", " (הקורא מקבל 0)", " (объявивший получает 0)",
       " (der Ansager bekommt 0)", " (호출자는 0점)"),
    _p(r" \(Assaf, (?P<k>assaf_scoring=\w+)\)", " (אסף, {k})", " (Асаф, {k})",
       " (Assaf, {k})", " (아사프, {k})"),
    _p(r" \(hand total (?P<t>\d+)\)", " (סך היד {t})", " (сумма руки {t})",
       " (Handsumme {t})", " (손패 합계 {t})"),
    # card.not_in_deck, card.too_many
    _p(r"the deal", "חלוקה", "раздаче", "die Austeilung", "배분"),
    _p(r"the showdown", "חשיפה", "вскрытии", "die Aufdeckung", "공개"),
    # where a card is (card.already_seen, card.not_on_pile)
    _p(r"(?P<names>.+) holds? (?P<c><CARD>)", "{c} אצל {names}", "{c} у {names}",
       "{c} ist bei {names}", "{c}은(는) {names}이(가) 가지고 있습니다"),
    _p(r"(?P<c><CARD>) lies on the pile \(in (?P<layer><CARDS>)\)",
       "{c} מונח בערימה (ב־{layer})", "{c} лежит в сбросе (в {layer})",
       "{c} liegt auf dem Ablagestapel (in {layer})", "{c}은(는) 버림패에 있습니다 ({layer})"),
    _p(r"(?P<c><CARD>) is in the stock", "{c} נמצא בקופה", "{c} в колоде",
       "{c} ist im Stapel", "{c}은(는) 더미에 있습니다"),
    _p(r"every (?P<c><CARD>) of the deck is accounted for",
       "כל ה־{c} שבחפיסה כבר ידועים", "все {c} колоды уже на своих местах",
       "jedes {c} des Spiels ist schon verbucht", "덱의 모든 {c}은(는) 이미 위치가 확인됩니다"),
    # the previous throw (draw.swap, card.not_on_pile)
    _p(r"there is no previous throw", "אין זריקה קודמת", "предыдущего сброса нет",
       "es gibt keinen vorigen Abwurf", "직전에 버린 패가 없습니다"),
    _p(r"nothing is left of the previous throw", "מהזריקה הקודמת לא נשאר כלום",
       "от предыдущего сброса ничего не осталось", "vom vorigen Abwurf ist nichts übrig",
       "직전에 버린 패가 하나도 남지 않았습니다"),
    _p(r"the previous throw is (?P<layer><CARDS>)", "הזריקה הקודמת היא {layer}",
       "предыдущий сброс: {layer}", "der vorige Abwurf ist {layer}",
       "직전에 버린 패는 {layer}입니다"),
    # draw.swap
    _p(r"it is not a joker", "הוא אינו ג'וקר", "это не джокер", "es ist kein Joker",
       "조커가 아닙니다"),
    _p(r"it does not stand for (?P<a><CARD>) in (?P<layer><CARDS>)",
       "הוא אינו מחליף את {a} ב־{layer}", "он не заменяет {a} в {layer}",
       "er steht in {layer} nicht für {a}", "{layer}에서 {a}을(를) 대신하지 않습니다"),
    # stock.mismatch
    _p(r"the recorded hands and stock leave (?P<n>\d+) cards for the one upcard "
       r"\((?P<c><CARDS>)\)",
       "הידיים והקופה שנרשמו משאירות {n} קלפים לקלף הפתוח היחיד ({c})",
       "записанные руки и колода оставляют {n} карт на одну открытую карту ({c})",
       "die aufgeschriebenen Hände und der Stapel lassen {n} Karten für die eine aufgedeckte "
       "Karte übrig ({c})",
       "기록된 손패와 더미로는 펼친 카드 한 장 자리에 {n}장이 남습니다 ({c})"),
    _p(r"the recorded hands and stock leave no card for the upcard",
       "הידיים והקופה שנרשמו אינן משאירות קלף לקלף הפתוח",
       "записанные руки и колода не оставляют карты для открытой карты",
       "die aufgeschriebenen Hände und der Stapel lassen keine Karte für die aufgedeckte "
       "Karte übrig",
       "기록된 손패와 더미로는 펼친 카드로 남는 카드가 없습니다"),
    _p(r"the recorded hands, upcard and stock are not the deck: (?P<c><CARDS>) (?:is|are) in "
       r"no hand, not the upcard and not in the stock",
       "הידיים, הקלף הפתוח והקופה שנרשמו אינם החפיסה: {c} אינם באף יד, אינם הקלף הפתוח "
       "ואינם בקופה",
       "записанные руки, открытая карта и колода не составляют колоду: {c} нет ни на руках, "
       "ни среди открытых, ни в колоде",
       "die aufgeschriebenen Hände, die aufgedeckte Karte und der Stapel sind nicht das "
       "Spiel: {c} ist in keiner Hand, nicht aufgedeckt und nicht im Stapel",
       "기록된 손패, 펼친 카드, 더미가 덱과 맞지 않습니다: {c}은(는) 어느 손패에도, 펼친 "
       "카드에도, 더미에도 없습니다"),
    # discard.combo: what the throw is (melds.classify)
    _p(r"an empty throw: a throw needs at least one card",
       "זריקה ריקה: זריקה צריכה לפחות קלף אחד", "пустой сброс: нужна хотя бы одна карта",
       "ein leerer Abwurf: ein Abwurf braucht mindestens eine Karte",
       "빈 버리기: 적어도 한 장은 버려야 합니다"),
    _p(r"(?P<c><CARDS>): (?P<reason_p>.+)", "{c}: {reason_p}", "{c}: {reason_p}",
       "{c}: {reason_p}", "{c}: {reason_p}"),
]

#: why a throw is no legal throw (melds.py), each tried in turn
REASONS: list[Pattern] = [
    _p(r"(?P<head_p>.+?); (?P<jacks><CARDS>) (?:is a wild jack|are wild jacks) "
       r"\((?P<k>wild_jacks=true)\)",
       "{head_p}; {jacks} הם נסיכים פראיים ({k})", "{head_p}; {jacks}: дикие валеты ({k})",
       "{head_p}; {jacks}: wilde Buben ({k})", "{head_p}; {jacks}은(는) 와일드 잭입니다 ({k})"),
    _p(r"(?P<head_p>.+?), and a run needs at least two natural cards",
       "{head_p}, ורצף צריך לפחות שני קלפים טבעיים",
       "{head_p}, а в ряду нужны хотя бы две настоящие карты",
       "{head_p}, und eine Folge braucht mindestens zwei natürliche Karten",
       "{head_p}, 그리고 런에는 진짜 카드가 적어도 두 장 필요합니다"),
    _p(r"not a set, as its cards are of more than one rank \(a set is (?P<a>\d+) to (?P<b>\d+) "
       r"cards of one rank, (?P<k1>set_min=\d+), (?P<k2>set_max=\d+)\), and not a run: "
       r"(?P<run_p>.+)",
       "אין זו קבוצה, כי הקלפים מיותר מדרגה אחת (קבוצה היא {a} עד {b} קלפים מאותה דרגה, {k1}, "
       "{k2}), ואין זה רצף: {run_p}",
       "это не комплект: карты разного достоинства (комплект: от {a} до {b} карт одного "
       "достоинства, {k1}, {k2}), и не ряд: {run_p}",
       "kein Satz, da die Karten verschiedene Werte haben (ein Satz sind {a} bis {b} Karten "
       "eines Werts, {k1}, {k2}), und keine Folge: {run_p}",
       "세트가 아닙니다: 숫자가 둘 이상입니다 (세트는 같은 숫자 {a}~{b}장, {k1}, {k2}), 런도 "
       "아닙니다: {run_p}"),
    _p(r"(?P<head_p>.+) \(and a run needs at least (?P<n>\d+) cards, (?P<k>run_min=\d+)\)",
       "{head_p} (ורצף צריך לפחות {n} קלפים, {k})",
       "{head_p} (и в ряду нужно хотя бы {n} карты, {k})",
       "{head_p} (und eine Folge braucht mindestens {n} Karten, {k})",
       "{head_p} (그리고 런에는 적어도 {n}장이 필요합니다, {k})"),
    _p(r"a throw of jokers alone is not a set \((?P<k>jokers_in_sets=false)\)",
       "זריקה של ג'וקרים בלבד אינה קבוצה ({k})", "одни джокеры не составляют комплект ({k})",
       "Joker allein sind kein Satz ({k})", "조커만으로는 세트가 되지 않습니다 ({k})"),
    _p(r"a set has at most (?P<n>\d+) cards \((?P<k>set_max=\d+)\)",
       "בקבוצה יש לכל היותר {n} קלפים ({k})", "в комплекте не больше {n} карт ({k})",
       "ein Satz hat höchstens {n} Karten ({k})", "세트는 최대 {n}장입니다 ({k})"),
    _p(r"a set needs at least (?P<n>\d+) cards \((?P<k>set_min=\d+)\)",
       "קבוצה צריכה לפחות {n} קלפים ({k})", "в комплекте нужно хотя бы {n} карты ({k})",
       "ein Satz braucht mindestens {n} Karten ({k})", "세트는 적어도 {n}장이어야 합니다 ({k})"),
    _p(r"a joker may not stand in a set \((?P<k>jokers_in_sets=false)\)",
       "ג'וקר אינו יכול להיות בקבוצה ({k})", "джокер не может входить в комплект ({k})",
       "ein Joker darf nicht in einem Satz stehen ({k})", "조커는 세트에 들어갈 수 없습니다 ({k})"),
    _p(r"not a legal throw", "זו אינה זריקה חוקית", "это не допустимый сброс",
       "kein erlaubter Abwurf", "규칙에 맞는 버리기가 아닙니다"),
    _p(r"cards of more than one rank are not a set, and cards of more than one suit are not a "
       r"run",
       "קלפים מיותר מדרגה אחת אינם קבוצה, וקלפים מיותר מצורה אחת אינם רצף",
       "карты разного достоинства не комплект, а карты разных мастей не ряд",
       "Karten verschiedener Werte sind kein Satz, Karten verschiedener Farben keine Folge",
       "숫자가 다른 카드는 세트가 아니고, 무늬가 다른 카드는 런이 아닙니다"),
    _p(r"a run must be one suit", "רצף חייב להיות מאותה צורה", "ряд должен быть одной масти",
       "eine Folge muss eine Farbe sein", "런은 한 무늬여야 합니다"),
    _p(r"a run never repeats a rank \((?P<c><CARD>) twice\)",
       "ברצף אין דרגה פעמיים ({c} פעמיים)", "в ряду достоинство не повторяется ({c} дважды)",
       "eine Folge wiederholt keinen Wert ({c} zweimal)",
       "런에서는 같은 숫자가 반복되지 않습니다 ({c} 두 번)"),
    _p(r"a joker may not stand in a run \((?P<k>jokers_in_runs=false)\)",
       "ג'וקר אינו יכול להיות ברצף ({k})", "джокер не может входить в ряд ({k})",
       "ein Joker darf nicht in einer Folge stehen ({k})", "조커는 런에 들어갈 수 없습니다 ({k})"),
    _p(r"a run needs at least (?P<n>\d+) cards \((?P<k>run_min=\d+)\)",
       "רצף צריך לפחות {n} קלפים ({k})", "в ряду нужно хотя бы {n} карты ({k})",
       "eine Folge braucht mindestens {n} Karten ({k})", "런은 적어도 {n}장이어야 합니다 ({k})"),
    _p(r"a run has at most (?P<n>\d+) cards \((?P<k>run_max=\d+)\)",
       "ברצף יש לכל היותר {n} קלפים ({k})", "в ряду не больше {n} карт ({k})",
       "eine Folge hat höchstens {n} Karten ({k})", "런은 최대 {n}장입니다 ({k})"),
    _p(r"a run has at most 13 cards: it never repeats a rank",
       "ברצף יש לכל היותר 13 קלפים: אין בו דרגה פעמיים",
       "в ряду не больше 13 карт: достоинство не повторяется",
       "eine Folge hat höchstens 13 Karten: sie wiederholt keinen Wert",
       "런은 최대 13장입니다: 같은 숫자가 반복되지 않습니다"),
    _p(r"a run must be placed in order, ascending or descending",
       "רצף מניחים לפי הסדר, עולה או יורד", "ряд выкладывают по порядку, по возрастанию "
       "или убыванию", "eine Folge wird der Reihe nach gelegt, auf- oder absteigend",
       "런은 오름차순이나 내림차순으로 순서대로 놓아야 합니다"),
    _p(r"(?P<s>[A2-9TJQK0-9-]+) goes round the corner \((?P<k>run_wrap=false)\)",
       "{s} עובר את הפינה ({k})", "{s} переходит через край ({k})",
       "{s} geht um die Ecke ({k})", "{s}은(는) 끝을 돌아 이어집니다 ({k})"),
    _p(r"(?P<s>[A2-9TJQK0-9-]+) needs the ace above the king \((?P<k>ace_high=false)\)",
       "{s} צריך את האס מעל המלך ({k})", "{s} требует туза выше короля ({k})",
       "{s} braucht das Ass über dem König ({k})", "{s}에는 킹 위의 에이스가 필요합니다 ({k})"),
    _p(r"(?P<a><CARDS>) (?:is|are) missing and no joker fills (?:it|them)",
       "חסר {a} ואין ג'וקר שממלא", "не хватает {a}, и джокер их не заменяет",
       "{a} fehlt und kein Joker füllt die Lücke", "{a}이(가) 빠졌고 채우는 조커가 없습니다"),
    _p(r"(?P<a><CARDS>) lie between (?P<x><CARD>) and (?P<y><CARD>), but only (?P<b><CARDS>) "
       r"(?:is|are) placed there",
       "בין {x} ל־{y} נמצאים {a}, אבל הונחו שם רק {b}",
       "между {x} и {y} лежат {a}, но положены только {b}",
       "zwischen {x} und {y} liegen {a}, aber nur {b} liegt dort",
       "{x}와(과) {y} 사이에는 {a}이(가) 있어야 하는데 {b}만 놓였습니다"),
    _p(r"nothing lies between (?P<x><CARD>) and (?P<y><CARD>), but (?P<b><CARDS>) (?:is|are) "
       r"placed there",
       "בין {x} ל־{y} אין כלום, אבל הונחו שם {b}",
       "между {x} и {y} ничего нет, но там положены {b}",
       "zwischen {x} und {y} liegt nichts, aber dort liegt {b}",
       "{x}와(과) {y} 사이에는 아무것도 없어야 하는데 {b}이(가) 놓였습니다"),
    _p(r"only (?P<a><CARDS>) lies? between (?P<x><CARD>) and (?P<y><CARD>), but (?P<b><CARDS>) "
       r"(?:is|are) placed there",
       "בין {x} ל־{y} נמצאים רק {a}, אבל הונחו שם {b}",
       "между {x} и {y} только {a}, но там положены {b}",
       "zwischen {x} und {y} liegt nur {a}, aber dort liegt {b}",
       "{x}와(과) {y} 사이에는 {a}만 있어야 하는데 {b}이(가) 놓였습니다"),
    _p(r"the joker at the (?P<at_p>start|end) would stand for a card below the ace "
       r"\((?P<k>run_wrap=false)\)",
       "הג'וקר ב{at_p} היה מחליף קלף מתחת לאס ({k})",
       "джокер в {at_p} заменял бы карту ниже туза ({k})",
       "der Joker am {at_p} stünde für eine Karte unter dem Ass ({k})",
       "{at_p}의 조커는 에이스 아래 카드가 됩니다 ({k})"),
    _p(r"the joker at the (?P<at_p>start|end) would stand for a card above the king "
       r"\((?P<k>ace_high=false)\)",
       "הג'וקר ב{at_p} היה מחליף קלף מעל המלך ({k})",
       "джокер в {at_p} заменял бы карту выше короля ({k})",
       "der Joker am {at_p} stünde für eine Karte über dem König ({k})",
       "{at_p}의 조커는 킹 위 카드가 됩니다 ({k})"),
    _p(r"the (?P<n>\d+) jokers at the (?P<at_p>start|end) would stand for cards below the ace "
       r"\((?P<k>run_wrap=false)\)",
       "{n} הג'וקרים ב{at_p} היו מחליפים קלפים מתחת לאס ({k})",
       "{n} джокера в {at_p} заменяли бы карты ниже туза ({k})",
       "die {n} Joker am {at_p} stünden für Karten unter dem Ass ({k})",
       "{at_p}의 조커 {n}장은 에이스 아래 카드가 됩니다 ({k})"),
    _p(r"the (?P<n>\d+) jokers at the (?P<at_p>start|end) would stand for cards above the king "
       r"\((?P<k>ace_high=false)\)",
       "{n} הג'וקרים ב{at_p} היו מחליפים קלפים מעל המלך ({k})",
       "{n} джокера в {at_p} заменяли бы карты выше короля ({k})",
       "die {n} Joker am {at_p} stünden für Karten über dem König ({k})",
       "{at_p}의 조커 {n}장은 킹 위 카드가 됩니다 ({k})"),
    _p(r"start", "התחלה", "начале", "Anfang", "시작"),
    _p(r"end", "סוף", "конце", "Ende", "끝"),
]


def _fill(pattern: Pattern, match: re.Match[str], lang: str) -> str | None:
    values: dict[str, str] = {}
    for name, value in match.groupdict().items():
        value = value or ""
        if name.endswith("_p"):
            said = _phrase(value, lang, REASONS if name in ("reason_p", "run_p", "head_p")
                           else PHRASES)
            if said is None:
                return None
            values[name] = said
        elif name.endswith("_or"):
            values[name] = OR[lang].join(value.split(" or "))
        elif name.endswith("_w"):
            values[name] = WORDS[value][lang] if value in WORDS else value
        else:
            values[name] = value
    return pattern.says[lang].format(**values)


def _phrase(text: str, lang: str, patterns: list[Pattern]) -> str | None:
    for pattern in patterns:
        match = pattern.regex.fullmatch(text)
        if match is not None:
            said = _fill(pattern, match, lang)
            if said is not None:
                return said
    if patterns is PHRASES:  # a throw's reading: "the cards: why", or only why
        return _phrase(text, lang, REASONS) if text else None
    return None


def translate(code: str, message: str, lang: str) -> str | None:
    """``message`` of finding ``code`` said in ``lang``, or None if no pattern reads it."""
    if lang not in LANGS:
        return message if lang == "en" else None
    return _phrase(message, lang, MESSAGES.get(code, []))


_CODE_IN_TEXT = re.compile(r"(?<![\w.=])([A2-9TJQK])([CDHS])(?![\w])")
_SUIT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def with_suits(text: str) -> str:
    """``text`` with its card codes as a player reads them: 8H -> 8\u2665, TD -> 10\u2666 (the
    reports keep the codes; the pages show the suits)."""
    return _CODE_IN_TEXT.sub(
        lambda m: ("10" if m[1] == "T" else m[1]) + _SUIT[m[2]], text)


def localize(finding: Mapping[str, Any], lang: str) -> str:
    """The message of ``finding`` (a report's finding) in ``lang``; English as written."""
    message = str(finding["message"])
    said = translate(str(finding.get("code", "")), message, lang)
    return message if said is None else said
