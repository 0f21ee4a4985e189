"""Memory must plateau: every in-process cache of the rules, the rooms and the server has a bound.

An unbounded ``lru_cache`` (or one whose bound is far beyond what play needs) makes a long-running
server's resident size climb for hours while it fills. The bounds come from bench/caches.py: hit rates
stay within a few points of an eight-times-larger bound (docs/performance.md, "Caches").
"""

import importlib
import pkgutil

import game
import rooms
import server

# Entries in all caches together; bench/caches.py weighs them at ~250 bytes each, prepared bot plans
# (~90 KB each, 256 of them) apart.
ENTRY_BUDGET = 150_000


def _caches():
    found = {}
    for pkg in (game, rooms, server):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            mod = importlib.import_module(info.name)
            for attr, fn in vars(mod).items():
                if hasattr(fn, "cache_info") and getattr(fn, "__module__", None) == info.name:
                    found[f"{info.name}.{attr}"] = fn
    return found


def test_memory_plateaus_every_cache_bounded():
    caches = _caches()
    assert len(caches) >= 20  # the walk found the engine's caches
    unbounded = [name for name, fn in caches.items() if fn.cache_info().maxsize is None]
    assert unbounded == []
    assert sum(fn.cache_info().maxsize for fn in caches.values()) <= ENTRY_BUDGET


def test_memory_plateaus_bot_plans_bound():
    from rooms.bot_plans import prepared_plans
    # Each entry holds every prepared plan for a meld set (~90 KB): a few hundred at most.
    assert prepared_plans.cache_info().maxsize <= 512
