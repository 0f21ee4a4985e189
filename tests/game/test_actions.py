"""The wire form of actions."""


def test_wire_list_is_to_dict_of_each_action_shared_or_not():
    from game.actions import DISCARDS, PASS, READY_DISCARDS, Chow, Discard, to_dict, wire_list

    actions = [DISCARDS[3], READY_DISCARDS[7], PASS, Chow(5), Discard(9, True, seq=4)]
    assert wire_list(actions) == [to_dict(a) for a in actions]
    assert wire_list([DISCARDS[3]])[0] is wire_list([DISCARDS[3]])[0]  # made once
