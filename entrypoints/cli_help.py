"""The `seksenbir` command's help in Turkish (the language policy: Turkish by default, English
with `--lang en`; docs/api.md "Language"). The parser is written with English help texts; this
table gives each its Turkish text, and `localise` puts them in when the language is Turkish,
with argparse's own words ("usage:", the group titles). tests/domain/test_cli.py fails on an
option whose help has no Turkish text here."""

from __future__ import annotations

import argparse
import re
import sys
import types
from typing import Any, NoReturn

HELP_TR: dict[str, str] = {
    "an auditor's export (R-14): while the season is not over, leave out the data of events "
    "that hold what auditors may not see, keeping each one's digest": (
        "denetçi dışa aktarımı (R-14): sezon bitmeden, denetçilerin göremeyeceğini taşıyan "
        "olayların verisini dışarıda bırakır, her birinin özetini tutar"
    ),
    "also check the chain heads the Divan reports published (a saved answer of GET "
    "/v1/seasons/{id}/reports, or a list of {divan, version, hash})": (
        "Divan raporlarının yayımladığı zincir başlarını da denetler (GET "
        "/v1/seasons/{id}/reports yanıtının bir kopyası ya da {divan, version, hash} listesi)"
    ),
    "show this help message and exit": "bu yardımı gösterir ve çıkar",
    "start a new trial season from the state after Divan N of a season, you in seat S (as "
    "POST /v1/seasons/{id}/fork by ops); prints its id and token": (
        "bir sezonun N. Divan'dan sonraki durumundan, S koltuğunda siz, yeni bir deneme sezonu "
        "başlatır (ops'un POST /v1/seasons/{id}/fork'u gibi); kimliğini ve jetonunu yazar"
    ),
    "the season id read from the database": "veritabanından okunan sezon kimliği",
    "the Divan whose resulting state the fork starts from (0: before Divan 1)": (
        "çatalın başladığı durumu veren Divan (0: 1. Divan'dan önce)"
    ),
    "your seat, 1 … 19": "koltuğunuz, 1 … 19",
    "language of the lines for people: tr (default) or en": (
        "insanlar için satırların dili: tr (varsayılan) ya da en"
    ),
    "resolve one Divan from a seksenbir-scenario/1 file": (
        "bir seksenbir-scenario/1 dosyasından tek bir Divan'ı çözer"
    ),
    "a whole trial season of computer beys": "bilgisayar beylerinden bütün bir deneme sezonu",
    "apply the event store's schema migrations (idempotent)": (
        "olay deposunun şema göçlerini uygular (tekrarı zararsız)"
    ),
    "the HTTP gateway: command and query APIs and /metrics (uvicorn)": (
        "HTTP geçidi: komut ve sorgu API'leri ve /metrics (uvicorn)"
    ),
    "a Dramatiq worker: resolver, projections or notify": (
        "bir Dramatiq işçisi: resolver, projections ya da notify"
    ),
    "print a new VAPID key pair for Web Push (SEKSENBIR_VAPID_PRIVATE_KEY)": (
        "Web Push için yeni bir VAPID anahtar çifti yazdır (SEKSENBIR_VAPID_PRIVATE_KEY)"
    ),
    "hand the workers every live season's due work (registration close, Divan, Kurultay close) "
    "and every trial Divan requested and not resolved, from PostgreSQL, every "
    "SEKSENBIR_SWEEP_INTERVAL_S (5) seconds": (
        "her SEKSENBIR_SWEEP_INTERVAL_S (5) saniyede PostgreSQL'den, her canlı sezonun vakti "
        "gelen işini (kayıt kapanışı, Divan, Kurultay kapanışı) ve istenip çözülmemiş her deneme "
        "Divan'ını işçilere verir"
    ),
    "PostgreSQL, Redis, migrations, API and workers, all at once": (
        "PostgreSQL, Redis, göçler, API ve işçiler, hepsi birden"
    ),
    "read models: rebuild one season or all": (
        "okuma modelleri: bir sezonu ya da hepsini yeniden kurar"
    ),
    "ops: messages the workers gave up on (after every retry)": (
        "ops: işçilerin (her yeniden denemeden sonra) vazgeçtiği mesajlar"
    ),
    "write one season's events with their hash-chain fields as seksenbir-export/2 JSON Lines "
    "(docs/export.md)": (
        "bir sezonun olaylarını hash zinciri alanlarıyla seksenbir-export/2 JSON Lines olarak "
        "yazar (docs/export.md)"
    ),
    "check a season: hash chain, a re-run of every Divan, the seed commitment; exit 0 only when "
    "all hold": (
        "bir sezonu denetler: hash zinciri, her Divan'ın yeniden koşusu, tohum taahhüdü; yalnız "
        "hepsi tutarsa çıkış 0"
    ),
    "load an exported season into this database (an audit copy); refuses a broken chain and a "
    "season id that exists": (
        "dışa aktarılmış bir sezonu bu veritabanına yükler (bir denetim kopyası); kırık zinciri "
        "ve var olan bir sezon kimliğini reddeder"
    ),
    "a season's state folded to a point, or one Divan re-run and compared with the record; "
    "writes nothing": (
        "bir sezonun bir noktaya kadar katlanmış durumu, ya da yeniden koşulup kayıtla "
        "karşılaştırılan bir Divan; hiçbir şey yazmaz"
    ),
    "the scenario file (JSON); `expected` in it is compared": (
        "senaryo dosyası (JSON); içindeki `expected` karşılaştırılır"
    ),
    "the season seed (0 … 2^63−1): same seed, same season": (
        "sezon tohumu (0 … 2^63−1): aynı tohum, aynı sezon"
    ),
    "how many Divans to play, 1 … 16 (default 16)": "kaç Divan oynanacağı, 1 … 16 (varsayılan 16)",
    "print the whole season as one JSON document instead of text": (
        "bütün sezonu metin yerine tek bir JSON belgesi olarak yazar"
    ),
    "PostgreSQL DSN (default: SEKSENBIR_PG_DSN)": "PostgreSQL DSN (varsayılan: SEKSENBIR_PG_DSN)",
    "address to listen on (default 127.0.0.1)": "dinlenecek adres (varsayılan 127.0.0.1)",
    "port to listen on (default 8081)": "dinlenecek kapı (varsayılan 8081)",
    "which worker to run": "hangi işçinin çalışacağı",
    "worker processes (default 1)": "işçi süreçleri (varsayılan 1)",
    "threads per process (default 2; resolver: SEKSENBIR_RESOLVER_THREADS, 8)": (
        "süreç başına iş parçacığı (varsayılan 2; resolver: SEKSENBIR_RESOLVER_THREADS, 8)"
    ),
    "the API's address (default 127.0.0.1)": "API'nin adresi (varsayılan 127.0.0.1)",
    "the API's port (default 8081)": "API'nin kapısı (varsayılan 8081)",
    "resolver worker processes (default SEKSENBIR_RESOLVER_PROCESSES, 2)": (
        "resolver işçi süreçleri (varsayılan SEKSENBIR_RESOLVER_PROCESSES, 2)"
    ),
    "rebuild into a new key generation and switch atomically": (
        "yeni bir anahtar kuşağına yeniden kurar ve tek adımda geçer"
    ),
    "the season id to rebuild (or --all, not both)": (
        "yeniden kurulacak sezonun kimliği (ya da --all, ikisi birden değil)"
    ),
    "rebuild every season in the store": "depodaki her sezonu yeniden kurar",
    "list the dead letters of the broker namespace": "aracı ad alanının ölü mektuplarını listeler",
    "send dead letters again (retries reset)": (
        "ölü mektupları yeniden gönderir (yeniden denemeler sıfırlanır)"
    ),
    "print them as a JSON list": "onları bir JSON listesi olarak yazar",
    "dead letters' ids (the first column of `list`; or --all, not both)": (
        "ölü mektupların kimlikleri (`list` çıktısının ilk sütunu; ya da --all, ikisi birden değil)"
    ),
    "replay every dead letter": "her ölü mektubu yeniden gönderir",
    "the season id": "sezonun kimliği",
    "write to this file instead of standard output": "standart çıktı yerine bu dosyaya yazar",
    "an export file (needs no database), or else a season id read from the database": (
        "bir dışa aktarım dosyası (veritabanı gerekmez), yoksa veritabanından okunan bir sezon "
        "kimliği"
    ),
    "verify every season in the database, with progress": (
        "veritabanındaki her sezonu ilerleme göstererek denetler"
    ),
    "a seksenbir-export/2 (or /1) file, as `seksenbir export` writes": (
        "`seksenbir export`un yazdığı gibi bir seksenbir-export/2 (ya da /1) dosyası"
    ),
    "a season id read from the database, or an export file": (
        "veritabanından okunan bir sezon kimliği ya da bir dışa aktarım dosyası"
    ),
    "re-run Divan N from its recorded inputs and the seed, compare it event by event with the "
    "record (exit 1 on a difference) and show the state after it": (
        "N. Divan'ı kayıtlı girdilerinden ve tohumdan yeniden koşar, kayıtla olay olay "
        "karşılaştırır (bir farkta çıkış 1) ve sonraki durumu gösterir"
    ),
    "show the state after the season's first V events (its stream version V)": (
        "sezonun ilk V olayından sonraki durumu gösterir (akış sürümü V)"
    ),
    "print JSON instead of tables": "tablolar yerine JSON yazar",
    "one Divan verified and explained battle by battle: attackers, supports and how each was "
    "classified, bonuses, dice with their keys, rules, outcome": (
        "tek bir Divan'ı doğrular ve savaş savaş açıklar: saldıranlar, destekler ve nasıl "
        "sınıflandıkları, artılar, anahtarlarıyla zarlar, kurallar, sonuç"
    ),
    "re-run one Divan with orders changed, added or removed or dice pinned, and show the "
    "difference from the record; writes nothing": (
        "tek bir Divan'ı emirler değiştirilmiş, eklenmiş ya da çıkarılmış veya zarlar "
        "sabitlenmiş olarak yeniden koşar ve kayıttan farkını gösterir; hiçbir şey yazmaz"
    ),
    "the Divan, 1 … 16": "Divan, 1 … 16",
    "only the battles at these plates (default: all; a plate given twice is one)": (
        "yalnız bu plakalardaki savaşlar (varsayılan: hepsi; iki kez verilen plaka birdir)"
    ),
    "print JSON (the ops endpoint's answer)": "JSON yazar (ops uç noktasının yanıtı)",
    'the changes as JSON: {"orders": [{"seat", "from", "kind", "to", "units"}], "dice": '
    '[{"target", "side", "value"}]} (kind "remove" takes an order away)': (
        'değişiklikler JSON olarak: {"orders": [{"seat", "from", "kind", "to", "units"}], '
        '"dice": [{"target", "side", "value"}]} ("kind": "remove" bir emri kaldırır)'
    ),
    "run every Divan of the given seasons through another build's `seksenbir adjudicate` and "
    "list every Divan whose outcome would change; changes nothing": (
        "verilen sezonların her Divan'ını başka bir yapının `seksenbir adjudicate` komutundan "
        "geçirir ve sonucu değişecek her Divan'ı listeler; hiçbir şeyi değiştirmez"
    ),
    "season ids read from the database, or export files": (
        "veritabanından okunan sezon kimlikleri ya da dışa aktarım dosyaları"
    ),
    "every season in the database": "veritabanındaki her sezon",
    'the other build\'s adjudicate command, e.g. "/other/venv/bin/seksenbir adjudicate"; '
    "the scenario file's path is added": (
        'öbür yapının adjudicate komutu, ör. "/other/venv/bin/seksenbir adjudicate"; '
        "senaryo dosyasının yolu sona eklenir"
    ),
    "Seksenbir game server": "Seksenbir oyun sunucusu",
}


class TurkishHelp(argparse.HelpFormatter):
    """argparse's own words in Turkish."""

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "kullanım: " if prefix is None else prefix)


# argparse's refusals (Python 3.11's texts) in Turkish; a text not listed stays as it is
ERRORS_TR: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"argument (.+?): (.*)", re.S), "{0} argümanı: {1}"),
    (re.compile(r"the following arguments are required: (.*)", re.S), "şu argümanlar gerekli: {0}"),
    (re.compile(r"unrecognized arguments: (.*)", re.S), "tanınmayan argümanlar: {0}"),
    (
        re.compile(r"invalid choice: (.*) \(choose from (.*)\)", re.S),
        "geçersiz seçim: {0} (seçenekler: {1})",
    ),
    (re.compile(r"invalid (\w+) value: (.*)", re.S), "geçersiz {0} değeri: {1}"),
    (re.compile(r"expected one argument"), "bir değer bekleniyor"),
    (re.compile(r"expected at least one argument"), "en az bir değer bekleniyor"),
    (re.compile(r"not allowed with argument (.*)", re.S), "{0} argümanıyla birlikte verilemez"),
    (re.compile(r"ignored explicit argument (.*)", re.S), "açıkça verilen {0} yok sayıldı"),
]


def error_tr(message: str) -> str:
    """An argparse refusal in Turkish (its inner refusal too: `argument --x: invalid choice`)."""
    for pattern, template in ERRORS_TR:
        found = pattern.fullmatch(message)
        if found is not None:
            parts = [error_tr(g) if i == len(found.groups()) - 1 else g
                     for i, g in enumerate(found.groups())]  # fmt: skip
            return template.format(*parts)
    return message


def _error(self: argparse.ArgumentParser, message: str) -> NoReturn:
    self.print_usage(sys.stderr)
    self.exit(2, f"{self.prog}: hata: {error_tr(message)}\n")


GROUP_TITLES_TR = {"positional arguments": "konumsal argümanlar", "options": "seçenekler"}


def untranslated(p: argparse.ArgumentParser) -> list[str]:
    """Every help text of the parser (and its sub-parsers) that has no Turkish text here."""
    return [h for h in helps(p) if h not in HELP_TR]


def localise(p: argparse.ArgumentParser) -> None:
    """Put the Turkish help texts, titles and usage prefix into `p` and every sub-parser."""
    p.formatter_class = TurkishHelp
    p.error = types.MethodType(_error, p)  # type: ignore[method-assign]
    if p.description:
        p.description = HELP_TR.get(p.description, p.description)
    for group in p._action_groups:
        group.title = GROUP_TITLES_TR.get(group.title or "", group.title)
    for action in p._actions:
        if action.help and action.help != argparse.SUPPRESS:
            action.help = HELP_TR.get(action.help, action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = HELP_TR.get(choice.help or "", choice.help)
            for sub in set(action.choices.values()):
                localise(sub)


def helps(p: argparse.ArgumentParser) -> list[str]:
    out = [p.description] if p.description else []
    for action in p._actions:
        if action.help and action.help != argparse.SUPPRESS:
            out.append(action.help)
        if isinstance(action, argparse._SubParsersAction):
            out += [c.help for c in action._choices_actions if c.help]
            for sub in set(action.choices.values()):
                out += helps(sub)
    return out
