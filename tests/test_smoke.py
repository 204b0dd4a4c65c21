from core import Settings, new_game


def test_a_new_game_deals_six_cards_to_each_player() -> None:
    game = new_game(Settings(), ["Ann", "Bob"], seed=7)
    assert [game.hand_size(s) for s in range(2)] == [6, 6]
