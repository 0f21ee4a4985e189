"""bench/soak.py's plateau figures, on made-up RSS samples of one server life."""

from bench.soak import plateau

MIB = 2**20


def test_plateau_of_memory_that_levels_off():
    # 60 samples a minute apart: RSS climbs 100 -> 140 MiB over the first 20 minutes, then stays.
    rss = [(60.0 * i, int((100 + 2 * min(i, 20)) * MIB)) for i in range(60)]
    p = plateau(rss)
    assert p["max_middle_third_mib"] == p["max_last_third_mib"] == p["max_mib"] == 140.0
    assert p["last_vs_middle_pct"] == 0.0
    assert p["t95_s"] == 60 * 17  # 134 MiB = 95.7 % of 140: the first sample at or over 133 MiB


def test_plateau_of_memory_still_growing():
    rss = [(100 + 60.0 * i, int((100 + i) * MIB)) for i in range(60)]
    p = plateau(rss)
    assert p["last_vs_middle_pct"] > 10  # the last third's max is well above the middle's
    assert p["t95_in_life_s"] == 60 * 52 and p["life_start_s"] == 100  # 152 MiB >= 0.95 * 159 MiB


def test_too_few_samples_give_no_plateau():
    assert plateau([(0.0, MIB), (5.0, MIB)]) is None
