"""Redis key builders: one hash tag per season, so a Redis Cluster keeps a season on one slot."""

from __future__ import annotations

from shared.domain.event_bounds import DIVANS, SEATS

# The hash views views.all_views derives, besides the per-bey private ones (Keys.private).
VIEW_NAMES = frozenset({"meta", "map", "beys", "titles", "treaties", "auth"})
# A generation's other keys of one name each (besides the per-seat and per-Divan ones).
GENERATION_KEYS = (
    "leaderboard",
    "checkpoint",
    "reports",
    "kurultay",
    "betrayals",
    "audit_betrayals",
    "treaty_timeline",
)


class Keys:
    """Keys of one season's projection generation (`gen`), under a deployment prefix."""

    def __init__(self, prefix: str, season_id: str, gen: int) -> None:
        self.prefix = prefix
        self.season_id = season_id
        self.gen = gen
        self.base = f"{prefix}:{{s:{season_id}}}:g{gen}"

    @staticmethod
    def active(prefix: str, season_id: str) -> str:
        """The generation readers and the projector use (switched atomically by a rebuild)."""
        return f"{prefix}:{{s:{season_id}}}:active"

    @staticmethod
    def building(prefix: str, season_id: str) -> str:
        """Set while a rebuild of the season runs (readers answer 503 if nothing is active)."""
        return f"{prefix}:{{s:{season_id}}}:building"

    @staticmethod
    def claim(prefix: str, season_id: str) -> str:
        """Held by the projector catching the season up on a wake-up (claims.py, ADR-112)."""
        return f"{prefix}:{{s:{season_id}}}:claim"

    @staticmethod
    def again(prefix: str, season_id: str) -> str:
        """Set by a wake-up that found the claim held: its holder catches up once more."""
        return f"{prefix}:{{s:{season_id}}}:again"

    @staticmethod
    def owner(prefix: str, season_id: str) -> str:
        """The projections process that last caught the season up: its wake-ups go to it."""
        return f"{prefix}:{{s:{season_id}}}:owner"

    @staticmethod
    def generations(prefix: str, season_id: str) -> str:
        """The season's generation counter (a rebuild's INCR names its generation)."""
        return f"{prefix}:{{s:{season_id}}}:generations"

    @staticmethod
    def held(prefix: str, season_id: str) -> str:
        """The generations that may hold keys without an expiry (a set): added to when a
        rebuild starts, removed from when one is retired or released; a rebuild's batch
        writes only while its generation is in it. What a retire reads instead of scanning
        the keyspace (ADR-148)."""
        return f"{prefix}:{{s:{season_id}}}:held-gens"

    @staticmethod
    def held_from(prefix: str, season_id: str) -> str:
        """The first generation `held` records: an older one predates the record (ADR-148),
        and the next retire finds its keys by a scan, once; then 1."""
        return f"{prefix}:{{s:{season_id}}}:held-gens:from"

    @staticmethod
    def seen(prefix: str, season_id: str) -> str:
        """When the season last had an event projected or a read (epoch seconds): the release
        pass's clock (services/projections/release.py, ADR-158)."""
        return f"{prefix}:{{s:{season_id}}}:seen"

    def every(self) -> list[str]:
        """Every key this generation may hold: what a release deletes (a test holds it whole)."""
        one = [self._named(n) for n in (*sorted(VIEW_NAMES), *GENERATION_KEYS)]
        seats = [self.private(s) for s in range(1, SEATS + 1)]
        seats += [self.reports_private(s) for s in range(1, SEATS + 1)]
        seats += [self.stream_log(s) for s in range(1, SEATS + 1)]
        divans = [f(d) for d in range(1, DIVANS + 1) for f in (self.battles, self.orders)]
        return [*one, self.stream_log(), *seats, *divans]

    def view(self, name: str) -> str:
        """The key of hash view `name` (views.all_views); KeyError for a name that is none."""
        if name not in VIEW_NAMES:
            raise KeyError(f"no projection view is called {name!r}")
        return self._named(name)

    def any_view(self, name: str) -> str:
        """The key of a view as `views.all_views` names it: a hash view, or `private:<seat>`."""
        if name.startswith("private:"):
            return self.private(int(name.split(":", 1)[1]))
        return self.view(name)

    def _named(self, name: str) -> str:
        return f"{self.base}:{name}"

    @property
    def meta(self) -> str:
        """The season's summary hash (phase, Divan, version; the seed once revealed)."""
        return self._named("meta")

    @property
    def map(self) -> str:
        """The public map: one field per province plate."""
        return self._named("map")

    @property
    def beys(self) -> str:
        """The public bey list: one field per seat."""
        return self._named("beys")

    @property
    def titles(self) -> str:
        """Region titles."""
        return self._named("titles")

    @property
    def treaties(self) -> str:
        """Treaties in force."""
        return self._named("treaties")

    @property
    def auth(self) -> str:
        """Token hashes by seat (never tokens), for the read side's authorisation."""
        return self._named("auth")

    @property
    def leaderboard(self) -> str:
        """The season's scores (a sorted set by seat)."""
        return self._named("leaderboard")

    @property
    def checkpoint(self) -> str:
        """The stream version this generation is projected up to."""
        return self._named("checkpoint")

    @property
    def reports(self) -> str:
        """The public Divan reports."""
        return self._named("reports")

    @property
    def kurultay(self) -> str:
        """The Kurultay's outcome."""
        return self._named("kurultay")

    @property
    def betrayals(self) -> str:
        """Public betrayal records."""
        return self._named("betrayals")

    @property
    def audit_betrayals(self) -> str:
        """Betrayal records for auditors."""
        return self._named("audit_betrayals")

    @property
    def treaty_timeline(self) -> str:
        """The treaty history."""
        return self._named("treaty_timeline")

    def private(self, seat: int) -> str:
        return f"{self.base}:private:{seat}"

    def reports_private(self, seat: int) -> str:
        return f"{self.base}:reports:{seat}"

    def stream_log(self, seat: int | None = None) -> str:
        """The event stream's messages, by id (a sorted set): the public channel's, or one
        bey's own; a stream resumes from it (services/projections/streamlog.py)."""
        return f"{self.base}:log" + (f":{seat}" if seat is not None else "")

    def battles(self, divan: int) -> str:
        return f"{self.base}:battles:{divan}"

    def orders(self, divan: int) -> str:
        return f"{self.base}:orders:{divan}"


# The cross-season keys share a hash tag of their own, `{x}`: on a Redis Cluster they sit
# together on one slot (never a season's), so the projector's step that writes them after a
# season's atomic step (Projector._advance, reducers.cross_season) is one node's pipeline.
CROSS_TAG = "{x}"


def cross(prefix: str, name: str) -> str:
    """A key outside every season's slot: the season index, the boards, the sweep marker."""
    return f"{prefix}:{CROSS_TAG}:{name}"


def swept(prefix: str) -> str:
    """Set by every completed sweep: the read side is initialised (absent after a wipe)."""
    return cross(prefix, "swept")


def sweep_mark(prefix: str, reader: str) -> str:
    """Set by a periodic reader's full read (`reader`: its own random name) before it reads:
    while it stands, Redis was not wiped since, and that reader's next reads may read only
    what changed (positions.Positions, ADR-147)."""
    return cross(prefix, f"sweep-mark:{reader}")


def seasons_index(prefix: str) -> str:
    """All projected seasons (a sorted set by creation order)."""
    return cross(prefix, "seasons")


def lobby(prefix: str) -> str:
    """The listed live seasons in registration, by their registration close (epoch seconds)."""
    return cross(prefix, "lobby")


def board(prefix: str, name: str) -> str:
    """Cross-season leaderboards."""
    return cross(prefix, f"boards:{name}")


def han_memleket(prefix: str, plate: int) -> str:
    """The seasons whose Han's memleket is `plate` (0: no Han), one sorted set per plate."""
    return f"{board(prefix, 'han_memleket')}:{plate}"


def betrayals_of(prefix: str, plate: int) -> str:
    """The seasons in which the bey of memleket `plate` betrayed or was betrayed (R-6.5): a
    sorted set of season ids by the log position of their first such Divan (issue 13)."""
    return cross(prefix, f"betrayals:memleket:{plate}")


def channel(prefix: str, season_id: str, seat: int | None = None) -> str:
    """Pub/sub channel announcing a season's news (and one per bey for its private part)."""
    return f"{prefix}:events:{season_id}" + (f":{seat}" if seat is not None else "")


def projected(prefix: str, season_id: str) -> str:
    """Pub/sub channel on which the projectors announce each season version they make
    readable (the payload: the version), so a read waiting for `?min_version=` wakes at once."""
    return f"{prefix}:projected:{season_id}"


def player_seasons(prefix: str, player_id: str) -> str:
    """The counted live seasons a player holds a seat in (issue 23): a sorted set of season
    ids by the log position of the SeatBound."""
    return cross(prefix, f"players:{player_id}:seasons")


def player_records(prefix: str) -> str:
    """Each finished counted season's record for its players (shared.domain.ratings
    SeasonRecord as JSON), a hash by season id; `player_records_order` orders them."""
    return cross(prefix, "players:records")


def player_records_order(prefix: str) -> str:
    """The finished counted seasons by the log position of their Kurultay: the order the
    ratings fold applies them in (ADR-88)."""
    return cross(prefix, "players:records:order")
