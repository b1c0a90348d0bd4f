"""R-14's two lists: which events an auditor's export during a season shows whole, and why
each of the others is left out (shared/app/ops/export.py redacts by them)."""

from __future__ import annotations

# R-14, docs/export.md "Redacted exports": during a season an auditor sees no orders that fought
# no battle, no missions, no gold, no seed, no bey's private report. The export leaves out the
# data of every event holding any of it (the auditor reads what R-14 grants of those, e.g.
# betrayals' battle records, from the query API); an unlisted event type is left out too. Every
# AnyEvent tag and every tag an upcaster reads is in exactly one list (test_export_lists.py).
VISIBLE_TO_AUDITORS = frozenset(
    {
        "bey_joined.v1",
        "bey_named.v1",  # issue 23: names, a lobby entry, an ops reset's reason: public
        "season_listed.v1",
        "seat_bound.v1",  # issue 23: a public player id, never its key (ADR-87)
        "calendar_set.v1",
        "calendar_set.v2",  # ADR-58
        "press_mode_set.v1",  # issue 24: the season's press mode is public
        "deadline_set.v1",
        "season_admin_acted.v1",
        "treaty_offered.v1",
        "offer_withdrawn.v1",
        "offer_answered.v1",
        "divan_requested.v1",
        "divan_held.v1",
        "offer_settled.v1",
        "treaties_dissolved.v1",
        "rebellions_run.v1",
        "mission_completed.v1",
        "hain_expired.v1",
        "treaty_expired.v1",
        # ADR-57: digests only, listed in the public report; the salts are in the private ones
        "orders_sealed.v1",
    }
)
HIDDEN_WHY = {
    "season_created.v1": "the seed and its salt (R-1.5)",
    "registration_closed.v1": "the missions dealt and the news deck's order",
    "orders_submitted.v1": "a bey's orders",
    "divan_locked.v1": "every bey's orders",
    "sur_built.v1": "a bey's gold spent",
    "mercenaries_hired.v1": "a bey's gold spent",
    "province_purchased.v1": "a bey's gold spent",
    "vote_cast.v1": "a Kurultay vote",
    "token_rotated.v1": "a token's hash",
    "admin_token_set.v1": "a token's hash",
    "news_revealed.v1": "gold paid to beys",
    "battles_resolved.v1": "gold (tribute) and the records of battles without a betrayal",
    "production_applied.v1": "gold income",
    "divan_resolved.v1": "each bey's private report",
    "season_forked.v1": "the position taken whole: every bey's gold and missions",
    # the fact stays public: its line in the export, the public report without the amount
    "correction_applied.v1": "a bey's gold when it corrects gold",
    # recorded only at the Kurultay, when every export is whole (season_over)
    "kurultay_held.v1": "every bey's Kurultay vote",
    "seed_revealed.v1": "the seed and its salt (R-1.5)",
}


def hidden_from_auditors(type_: str) -> bool:
    """Whether an auditor's export during a season leaves this event's data out (R-14)."""
    return type_ not in VISIBLE_TO_AUDITORS
