"""The simulated table's world: the true hands behind the blind referee, its timeline, and what players see."""
from __future__ import annotations

from collections import Counter

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Slap
from referee.core.session import Session, build_game
from tabletop.sim_world import SimWorld


def blind_session(game: str = "slapjack", players: int = 3) -> Session:
    return Session(build_game(game, players, faces_known=False), holdback_ns=100 * MS, strict=False)


def every_card(game) -> Counter[str]:
    cards = [c for h in game.hands for c in h] + [laid.card for laid in game.pile] + list(game.aside)
    cards += [c for group in (*game.scoring, *game.penalty) for c in group]
    return Counter(str(c) for c in cards)


def play(session: Session, world: SimWorld, cards: int, *, slap_triggers: bool = True) -> int:
    """The player on turn lays their true card, the camera names it; the next seat slaps a trigger."""
    t = 1000 * MS
    for _ in range(cards):
        seat = world.twin.turn
        if seat is None or session.game.over:
            break
        card = world.lay(seat, t)
        trigger = world.predict(card, t) is not None
        session.submit(CardSeen(card, t), now_ns=t + 50 * MS)
        if trigger and slap_triggers:
            session.submit(Slap((seat + 1) % session.game.n, t + 300 * MS), now_ns=t + 300 * MS)
        session.advance(t + 700 * MS)
        t += 700 * MS
    return t


def test_the_twin_holds_the_true_cards_where_the_referee_holds_counts() -> None:
    session = blind_session()
    world = SimWorld(seed=4)
    world.follow(session.game, 0)
    twin, referee = world.twin, session.game
    assert [len(h) for h in twin.hands] == [len(h) for h in referee.hands] == [17, 18, 17]
    assert all(c is None for h in referee.hands for c in h) and not any(c is None for h in twin.hands for c in h)
    assert every_card(twin) == Counter(str(c) for c in referee.deck(3, referee.opts))
    play(session, world, 40)
    assert any(r.kind == "wins_pile" for r in referee.rulings)       # piles changed hands...
    assert [len(h) for h in twin.hands] == [len(h) for h in referee.hands]
    assert [r.kind for r in twin.rulings] == [r.kind for r in referee.rulings]
    for mine, theirs in zip(twin.hands, referee.hands):               # ...and what the referee saw, it knows
        assert all(t is None or t == m for m, t in zip(mine, theirs))
    assert world.resyncs == 0 and every_card(twin) == Counter(str(c) for c in referee.deck(3, referee.opts))


def test_an_operators_correction_rebuilds_the_twin_from_the_referee() -> None:
    session = blind_session("irish-snap", 3)
    world = SimWorld(seed=2)
    world.follow(session.game, 0)
    play(session, world, 6, slap_triggers=False)
    session.game.correct_hand(1, 5, session.game.now)
    assert world.resyncs == 1
    assert [len(h) for h in world.twin.hands] == [len(h) for h in session.game.hands]
    assert len(world.twin.hands[1]) == 5 and None not in world.twin.hands[1]


def test_a_player_sees_a_trigger_the_moment_it_lands() -> None:
    session = blind_session()
    world = SimWorld(seed=1)
    world.follow(session.game, 0)
    assert world.predict(Card.parse("JS"), 5 * MS) is not None
    assert world.predict(Card.parse("7H"), 5 * MS) is None
    assert session.game.cards_laid == 0 and world.twin.cards_laid == 0     # seeing is not playing


def test_the_timeline_is_what_the_camera_sees_when() -> None:
    session = blind_session()
    world = SimWorld(seed=1)
    world.follow(session.game, 0)
    card = world.lay(world.twin.turn, 100 * MS)
    world.reach(2, 300 * MS, 500 * MS, 0.6)
    world.sweep(800 * MS)
    assert world.scene(99 * MS) == {"cards": [], "hands": []}
    assert [c["card"] for c in world.scene(400 * MS)["cards"]] == [str(card)]
    assert world.scene(400 * MS)["hands"] == [{"seat": 2, "cover": 0.6}] and world.scene(500 * MS)["hands"] == []
    assert world.scene(800 * MS)["cards"] == [] and world.pile_lying(799 * MS) == 1
    assert world.next_change(100 * MS) == 300 * MS and world.next_change(800 * MS) is None
