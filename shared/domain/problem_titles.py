"""The problems' titles (RFC 9457 `title`) in Turkish and English."""

from __future__ import annotations

from shared.domain.bilingual import DEFAULT, Lang

# RFC 9457 `title`: the problem type's short summary, the same for every occurrence. English is
# the code in words; Turkish is its own (every code the API answers has one: the test of the
# catalogue checks it against shared.app.openapi.CODES).
PROBLEM_TITLES_TR: dict[str, str] = {
    "malformed_json": "bozuk JSON",
    "idempotency_key_required": "Idempotency-Key gerekli",
    "bad_idempotency_key": "geçersiz Idempotency-Key",
    "token_in_query": "adreste jeton",
    "ambiguous_authorization": "iki Authorization başlığı",
    "bad_last_event_id": "geçersiz Last-Event-ID",
    "missing_token": "jeton yok",
    "bad_token": "geçersiz jeton",
    "bad_ticket": "geçersiz bilet",
    "token_wrong_season": "başka sezonun jetonu",
    "forbidden": "yetki yok",
    "audit_copy": "denetim kopyası",
    "not_your_province": "sizin iliniz değil",
    "not_allowed_in_mode": "bu sezon türünde olmaz",
    "season_not_found": "sezon bulunamadı",
    "not_found": "bulunamadı",
    "divan_not_found": "Divan bulunamadı",
    "divan_locked": "Divan kilitli",
    "wrong_divan": "yanlış Divan",
    "wrong_phase": "yanlış evre",
    "offer_exists": "teklif zaten var",
    "already_voted": "oy zaten verildi",
    "idempotency_key_in_flight": "aynı anahtarlı istek sürüyor",
    "conflict": "çakışma",
    "body_too_large": "gövde çok büyük",
    "unsupported_media_type": "desteklenmeyen ortam türü",
    "unknown_field": "bilinmeyen alan",
    "invalid_body": "geçersiz gövde",
    "invalid_parameter": "geçersiz parametre",
    "duplicate_province": "bir ile iki emir",
    "missing_target": "hedef yok",
    "not_a_neighbour": "komşu değil",
    "bad_units": "geçersiz birlik sayısı",
    "not_enough_gold": "altın yetmiyor",
    "sur_exists": "sur zaten var",
    "over_cap": "birlik sınırı aşılıyor",
    "not_purchasable": "satın alınamaz",
    "no_offer": "teklif yok",
    "bad_partner": "geçersiz taraf",
    "allied_already": "zaten müttefik",
    "perde_3": "3. perdede antlaşma yok",
    "vote_self": "kendine oy",
    "idempotency_key_reused": "anahtar başka istekte kullanıldı",
    "unknown_province": "bilinmeyen il",
    "unknown_seat": "bilinmeyen koltuk",
    "season_exists": "sezon zaten var",
    "memleket_taken": "memleket alınmış",
    "season_full": "sezon dolu",
    "registration_closed": "kayıt kapandı",
    "season_cancelled": "sezon iptal edildi",
    "already_paused": "zaten duraklatıldı",
    "not_paused": "duraklatılmadı",
    "registration_close_required": "kayıt kapanışı gerekli",
    "registration_too_soon": "kayıt kapanışı çok yakın",
    "invalid_instant": "geçersiz an",
    "bad_interval": "geçersiz aralık",
    "not_later": "daha geç değil",
    "reason_required": "gerekçe gerekli",
    "invalid_correction": "geçersiz düzeltme",
    "chain_broken": "zincir kırık",
    "redaction_unavailable": "gizlenmiş dışa aktarım olmaz",
    "too_many_failed_attempts": "çok fazla başarısız deneme",
    "too_many_requests": "çok fazla istek",
    "too_many_streams": "çok fazla akış",
    "store_busy": "olay deposu meşgul",
    "projection_rebuilding": "okuma modeli yeniden kuruluyor",
    "not_yet_projected": "henüz okuma tarafına yansımadı",
    "read_unavailable": "okuma tarafı yanıt vermiyor",
    "streams_full": "akışlar dolu",
    "audit_unavailable": "denetim kaydı yazılamıyor",
}


def problem_title(code: str, lang: Lang = DEFAULT) -> str:
    """A problem's `title` in `lang`: Turkish from PROBLEM_TITLES_TR, English the code in words."""
    english = code.replace("_", " ")
    return PROBLEM_TITLES_TR.get(code, english) if lang == "tr" else english
