"""Every human text a refusal or the CLI shows, in Turkish and English: one catalogue.

The language policy (docs/api.md "Language"): Turkish by default, English on request
(`Accept-Language: en` or `?lang=en` over HTTP, `--lang en` on the command line). A refusal
keeps a stable `code` and its `details`; its text is rendered from this catalogue, in the
language asked for, at the edge (shared.app.http.problems). The game's own words (Divan, Hain, Han,
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

from shared.domain.bilingual import DEFAULT, LANGS, Lang, T, Text
from shared.domain.map import game_map
from shared.domain.messages_tools import TOOLS
from shared.domain.problem_titles import PROBLEM_TITLES_TR, problem_title

__all__ = [
    "CATALOGUE",
    "DEFAULT",
    "LANGS",
    "PROBLEM_TITLES_TR",
    "Lang",
    "Said",
    "T",
    "Text",
    "code_of",
    "language",
    "language_of",
    "legacy",
    "params",
    "problem_title",
    "render",
    "said_from_english",
    "text",
]

# fmt: off
CATALOGUE: dict[str, Text] = {
    # --- the domain's refusals (shared/domain: decide, season, live) -------------------------
    "registration_closed": T("Kayıt kapandı", "Registration is closed"),
    "registration_closed.already": T("Kayıt zaten kapalı", "Registration is already closed"),
    "unknown_province": T("{province} plakalı il yok", "There is no province with plate {province}"),
    "season_full": T("Sezon dolu: 19 koltuk da alındı", "The season is full: all 19 seats are taken"),
    "not_allowed_in_mode.one_human": T("Deneme sezonunda tek insan bey olur", "A trial season has one human bey"),
    "not_allowed_in_mode.trial_calendar": T("Deneme sezonunun takvimi olmaz", "A trial season has no calendar"),
    "not_allowed_in_mode.trial_press": T("Deneme sezonunda sohbet olmaz", "A trial season has no chat"),
    "not_allowed_in_mode.live_divans": T("Canlı sezonda Divan takvimle toplanır", "In a live season the Divans are held by the calendar"),
    "memleket_taken": T("{memleket_name} alınmış; boş komşulardan birini seçin", "{memleket_name} is taken; choose one of its free neighbours"),
    "player_already_seated": T("Bu oyuncu bu sezonda zaten bir koltukta oturuyor", "This player holds a seat of this season already"),
    "bad_player_key": T("Oyuncu anahtarı geçersiz (ya da oyuncu ayrıldı)", "The player key is not valid (or its player left)"),
    "player_not_found": T("Böyle bir oyuncu yok (ya da ayrıldı)", "No such player (or the player left)"),
    "invalid_body.player_key_seat": T("Oyuncu anahtarı bir koltuk ister: memleket seçin", "A player key needs a seat: choose a memleket"),
    "not_allowed_in_mode.trial_player": T("Deneme sezonu oyuncu kaydına sayılmaz: oyuncu anahtarı yalnız canlı sezonda", "A trial season never counts for a player: a player key is for live seasons only"),
    "unknown_seat": T("{seat}. koltukta bey yok", "There is no bey in seat {seat}"),
    # R-15.5: beys' names (shared/domain/names.py)
    "invalid_name": T("{field}: geçersiz ad", "{field}: not a valid name"),
    "invalid_name.length": T("{field}: bir ad 2 … 24 karakter olur", "{field}: a name has 2 … 24 characters"),
    "invalid_name.character": T("{field}: bir ad yalnız harf, rakam, boşluk ve . - _ ' içerir", "{field}: a name holds only letters, digits, spaces and . - _ '"),
    "invalid_name.spaces": T("{field}: ad boşlukla başlayıp bitmez, iki boşluk yan yana gelmez", "{field}: a name neither starts nor ends with a space, nor has two in a row"),
    "invalid_name.letter": T("{field}: bir adda en az bir harf olur", "{field}: a name has at least one letter"),
    "invalid_name.without_memleket": T("{field}: ad bir beyindir: memleket de verin", "{field}: a name is a bey's: give a memleket too"),
    "invalid_name.unnamed": T("{seat}. koltuğun adı yok", "Seat {seat} has no name"),
    "no_description": T("Sezonun lobide açıklaması yok", "The season has no lobby description"),
    "name_reserved": T("{field}: bu ad ayrılmış (koltuk adları, Han, Hain ve öbür unvanlar, ops, sistem, bilgisayar beyleri ve benzerleri)", "{field}: this name is reserved (seat forms, Han, Hain and the other titles, ops, system, computer beys and their lookalikes)"),
    "name_taken": T("{field}: bu sezonda bu ad ya da ona benzeyen bir ad alınmış", "{field}: this name, or one that looks like it, is taken in this season"),
    "invalid_body.description": T("{field}: açıklama tek satırlık, görünür 1 … 280 karakter olur", "{field}: a description is one line of 1 … 280 visible characters"),
    "not_allowed_in_mode.lobby_live_only": T("Lobide yalnız canlı sezonlar olur", "Only live seasons are in the lobby"),
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
    "receiver_not_found": T("Böyle bir webhook ya da bildirim aboneliğiniz yok", "You have no such webhook or push subscription"),
    "receivers_full": T("En çok {limit} alıcı kaydedilebilir", "At most {limit:receiver|receivers} may be registered"),
    "receiver_refused": T("Bu adrese çağrı yapılmaz ({reason}): https, 443 numaralı kapı ve genel bir adres gerekir", "The server does not call this address ({reason}): https, port 443 and a public address are required"),
    "chat_closed": T("Bu sezonda sohbet yok", "This season has no chat"),
    "press_restricted": T("Bu sezonda yalnız herkese açık kanala yazılır", "In this season only the public channel is open"),
    "chat_read_only": T("Kurultay kapandı: kanallar yalnız okunur", "The Kurultay is closed: the channels are read-only"),
    "computer_bey": T("Bilgisayar beyleri sohbet etmez: {seats}", "Computer beys do not chat: {seats}"),
    "bad_recipients": T("Alıcılar geçersiz: bilinmeyen ya da yinelenen koltuk, yalnız kendiniz, ya da 19 beyden çok", "Invalid recipients: an unknown or repeated seat, only yourself, or more than 19 beys"),
    "chat_text.too_long": T("Mesaj en çok {limit} karakter olur ({length})", "A message has at most {limit:character|characters} ({length})"),
    "chat_text.too_many_lines": T("Mesaj en çok {limit} satır olur", "A message has at most {limit:line|lines}"),
    "chat_text.character": T("Mesaj {character} içeremez (denetim, biçim ya da yön karakteri)", "A message cannot hold {character} (a control, format or direction character)"),
    "chat_text.marks": T("Mesajda bir harfin üstünde art arda en çok {limit} işaret olur", "A message holds at most {limit} combining marks in a row on a letter"),
    "chat_text.blank": T("Mesajda görünür bir şey yok", "The message has nothing visible in it"),
    "chat_rate_limited": T("Bir dakikada en çok {limit} mesaj", "At most {limit:message|messages} a minute"),
    "channel_not_found": T("Böyle bir kanalınız yok", "You have no such channel"),
    "message_not_found": T("Böyle bir mesaj yok", "There is no such message"),
    "audit_copy": T("Bu sezon içe aktarılmış bir denetim kopyası: okunur, yazılmaz", "This season is an imported audit copy: it is read, never written"),
    "divan_not_found": T("{divan}. Divan yok ya da henüz toplanmadı", "Divan {divan} does not exist (yet)"),
    "not_found": T("Bu adreste bir şey yok", "Nothing is at this address"),
    "not_found.board": T("Böyle bir tablo yok", "There is no such board"),
    "not_found.client": T("Tarayıcı istemcisi bu sunucuda kurulmamış: `make web` kurar", "The browser client is not built on this server: `make web` builds it"),
    "method_not_allowed": T("Bu adres bu yöntemi kabul etmiyor", "This address does not take this method"),
    "body_too_large": T("İstek gövdesi çok büyük", "The request body is too large"),
    "uri_too_long": T("İstek adresi (yol ve sorgu) {length} bayt; en çok {limit} bayt olur", "The request target (path and query) is {length:byte|bytes}; at most {limit:byte|bytes} are taken"),
    "rate_limited": T("Çok fazla istek; biraz sonra tekrar deneyin", "Too many requests; try again shortly"),
    "bad_request": T("İstek anlaşılamadı", "The request could not be understood"),
    "malformed_json": T("İstek gövdesi geçerli JSON değil", "The request body is not valid JSON"),
    "bad_last_event_id": T("Last-Event-ID bir akış kimliği (V-k) ya da sezon sürümü (V) olmalı", "Last-Event-ID must be a stream id (V-k) or a season version (V)"),
    "malformed_json.empty": T("İstek gövdesi boş", "The request body is empty"),
    "malformed_json.utf8": T("İstek gövdesi geçerli UTF-8 değil (RFC 8259)", "The request body is not valid UTF-8 (RFC 8259)"),
    "malformed_json.surrogate": T("İstek gövdesinde yarım bir UTF-16 vekil çifti var ({escape}, bayt {byte}): tek başına bir karakter değil (RFC 8259 §8.2)", "The request body holds half of a UTF-16 surrogate pair ({escape}, byte {byte}): no character on its own (RFC 8259 §8.2)"),
    "malformed_json.syntax": T("İstek gövdesi geçerli JSON değil ({error})", "The request body is not valid JSON ({error})"),
    "malformed_json.too_deep": T("JSON en fazla {limit} düzey iç içe olabilir", "JSON nests at most {limit:level|levels} deep"),
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
    "invalid_parameter.repeated": T("{field} parametresi bir kez verilir, {repeated} kez verildi: hangisinin kastedildiği tahmin edilmez", "The parameter {field} is given once, not {repeated:time|times}: which one is meant is never guessed"),
    "invalid_parameter.bounded": T("{field}: {minimum} … {maximum} arasında bir tamsayı olmalı", "{field}: must be an integer {minimum} … {maximum}"),
    "invalid_body.seed": T("{field}: tohum 0 … 2^63 − 1 aralığında olmalı", "{field}: the seed must be within 0 … 2^63 − 1"),
    "invalid_body.memleket_required": T("Deneme sezonu memleket ister ({field}: {minimum} … {maximum})", "A trial season needs a memleket ({field}: {minimum} … {maximum})"),
    "invalid_body.what_if_order": T("{seat}. koltuğun {province} için değişikliği o Divan'da verilemezdi: {why} [{reason}]", "Seat {seat}'s change at {province} could not have been given at that Divan: {why} [{reason}]"),
    "invalid_body.what_if_die": T("Aynı zar iki kez sabitlenmiş: {target} {side}", "The same die is pinned twice: {target} {side}"),
    "invalid_body.what_if_seat": T("Değişiklik sezonda olmayan bir koltuğu anıyor: {seat}", "A change names a seat that is not in the season: {seat}"),
    "invalid_body.divan": T('Gövde {{"divan": n}} olmalı', 'The body must be {{"divan": n}}'),
    "invalid_body.type": T("{at}: {expected} bekleniyor, {got} verildi", "{at}: expected {expected}, got {got}"),
    "invalid_body.constraint": T("{at}: {expected} {constraint} olmalı", "{at}: must be {expected} {constraint}"),
    "invalid_body.missing": T("Zorunlu alan eksik: {at}", "Missing required field: {at}"),
    "invalid_body.value": T("{at}: geçersiz değer", "{at}: invalid value"),
    "invalid_body.reason": T("{field}: tek satırlık bir metin {character} içeremez (denetim, satır ya da paragraf ayırıcı, yön işareti, özel kullanım ya da atanmamış karakter)", "{field}: a one-line text cannot hold {character} (a control, line or paragraph separator, direction mark, private-use or unassigned character)"),
    "invalid_body.seed_text": T('{at}: 0 … 2^63 − 1 arasında ondalık bir sayı, dizge olarak (ör. "7")', '{at}: a decimal number within 0 … 2^63 − 1, as a string (e.g. "7")'),
    "invalid_body.secret_text": T("{at}: URL-güvenli base64 alfabesinden (A-Z a-z 0-9 _ -) tam 32 karakter olur (24 rastgele bayt)", "{at}: exactly 32 characters of the URL-safe base64 alphabet (A-Z a-z 0-9 _ -), 24 random bytes"),
    "invalid_body.secret_unused": T("{field}: bu istek böyle bir jeton vermez", "{field}: this request issues no such token"),
    "invalid_body.secrets_equal": T("{field}: bu istekteki öteki sırdan farklı olmalı", "{field}: must differ from this request's other secret"),
    "invalid_body.too_long": T("{at}: en çok {limit} karakter olur", "{at}: at most {limit:character|characters}"),
    "invalid_body.too_short": T("{at}: en az {limit} karakter olur", "{at}: at least {limit:character|characters}"),
    "invalid_body.too_many": T("{at}: en çok {limit} öğe olur", "{at}: at most {limit:item|items}"),
    "invalid_body.too_few": T("{at}: en az {limit} öğe olur", "{at}: at least {limit:item|items}"),
    "invalid_body.choice": T("{at}: şunlardan biri olmalı: {choices}", "{at}: must be one of {choices}"),
    "bad_idempotency_key": T("Idempotency-Key 1 … 200 karakter olur", "An Idempotency-Key has 1 … 200 characters"),
    "idempotency_key_required": T("Bu komut Idempotency-Key başlığı ister", "This command needs an Idempotency-Key header"),
    "idempotency_key_in_flight": T("Bu anahtarla ilk istek hâlâ sürüyor", "The first request with this key is still running"),
    "secret_not_replayable": T("Bu anahtarla ilk istek yanıtlandı, ama sırlarını sunucu seçtiği için yeniden verilemez: yeni anahtarla, istemcinin kendi sırlarıyla yeniden isteyin", "The first request with this key was answered, but its secrets were drawn by the server and cannot be given again: ask anew, with a new key and secrets of the client's own"),
    "idempotency_key_reused": T("Bu anahtar başka bir istekle kullanıldı", "This key was used with another request"),
    "conflict": T("Sezon çok meşgul; tekrar deneyin", "The season is too busy; try again"),
    "conflict.player": T("Oyuncu kaydı aynı anda değişti; tekrar deneyin", "The player's record changed at the same moment; try again"),
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
    "too_many_requests": T("Çok fazla istek; {wait} saniye sonra tekrar deneyin", "Too many requests; try again in {wait:second|seconds}"),
    "too_many_failed_attempts": T("Çok fazla geçersiz jeton denendi; {wait} saniye sonra tekrar deneyin", "Too many invalid tokens; try again in {wait:second|seconds}"),
    "bad_ticket": T("Bilet geçersiz ya da kullanılmış", "The ticket is invalid or used"),
    "too_many_streams": T("Bu adresten en fazla {limit} akış açık olabilir", "At most {limit:stream|streams} may be open per client"),
    "streams_full": T("Sunucuda akış için yer yok; biraz sonra tekrar deneyin", "No stream slots are free; try again shortly"),
    "read_unavailable": T("Okuma tarafı şu an yanıt vermiyor", "The read side is unavailable"),
    "audit_unavailable": T("Gizli okuma kaydedilemedi; biraz sonra tekrar deneyin", "The secret read could not be recorded; try again shortly"),
    "projection_rebuilding": T("Görünüm yeniden kuruluyor; biraz sonra tekrar deneyin", "The view is being rebuilt; try again shortly"),
    "not_yet_projected": T("Okuma tarafı henüz {version}. sürümde değil (şu an {projected_version}); biraz sonra tekrar deneyin", "The read side has not reached version {version} yet (it is at {projected_version}); try again shortly"),
}
CATALOGUE.update(TOOLS)  # the tools' lines (shared.domain.messages_tools), after these
# fmt: on

_PLATES = ("province", "memleket", "target")


def code_of(key: str) -> str:
    """The stable code a message key answers with: `wrong_phase.kurultay_over` → wrong_phase."""
    return key.partition(".")[0]


def params(details: Mapping[str, object]) -> dict[str, object]:
    """A refusal's details, plus the name of each plate it names (`province_name`, …)."""
    out = dict(details)
    if not any(name in details for name in _PLATES):
        return out  # no plate named: the map (built on its first read) is not needed
    gm = game_map()
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
    values = {k: _counted(text(v, lang)) for k, v in (details or {}).items()}
    return template.format_map(params(values))


class Count(int):
    """A number in a line for people. `{n:unit|units}` in a template says it with its noun,
    the singular after 1 and the plural after any other count ("1 unit", "0 units", "3
    units": English); `{n}` is the number alone (Turkish takes no plural after a number)."""

    def __format__(self, spec: str) -> str:
        one, bar, many = spec.partition("|")
        if not bar:
            return super().__format__(spec)
        return f"{int(self)} {one if self == 1 else many}"


def _counted(value: object) -> object:
    return Count(value) if isinstance(value, int) and not isinstance(value, bool) else value


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
        counts: set[str] = set()  # `{n:one|many}`: a number and its noun, read back as the number
        parts = []
        for literal, name, spec, _conv in Formatter().parse(t.en):
            parts.append(re.escape(literal))
            if name is not None:
                one, bar, many = (spec or "").partition("|")
                noun = f" (?:{re.escape(one)}|{re.escape(many)})" if bar else ""
                parts.append(f"(?P<p{len(names)}>{'-?[0-9]+' if bar else '.+?'}){noun}")
                if bar:
                    counts.add(name)
                names.append(name)
        found = re.fullmatch("".join(parts), english, re.DOTALL)
        if found is not None:
            read = {n: found.group(f"p{i}") for i, n in enumerate(names)}
            return Said(key, **{n: int(v) if n in counts else v for n, v in read.items()})
    return None


def language(value: str | None) -> Lang:
    """`tr` or `en` from a --lang / lang value; anything else is the default."""
    return "en" if value is not None and value.strip().lower().startswith("en") else DEFAULT
