"""Places and their time zones, read from the zone database that ships with the system or the
tzdata package: "9am Tokyo time" is a zone to the time parser and no person to the redactor."""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources
from pathlib import Path

from lang import data


@functools.cache
def zoneinfo_dir() -> str:
    """The zone database: the system's, else the tzdata package's copy."""
    system = Path("/usr/share/zoneinfo")
    if (system / "zone.tab").exists():
        return str(system)
    packaged = Path(str(resources.files("tzdata") / "zoneinfo"))
    if (packaged / "zone.tab").exists():
        return str(packaged)
    raise FileNotFoundError("No zone database found; install the tzdata package or tzdata (apt)")


@functools.cache
def zone_countries(directory: str) -> dict[str, str]:
    """IANA zone -> ISO country code from the zone.tab of the zone database."""
    countries: dict[str, str] = {}
    table = Path(directory) / "zone.tab"
    if not table.exists():
        return countries
    for line in table.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            fields = line.split("\t")
            countries[fields[2]] = fields[0]
    return countries


@functools.cache
def _places(directory: str) -> dict[str, str]:
    """Place name -> IANA zone: every city of zone.tab ("Tokyo", "New York"), every country
    with one zone ("Japan") from iso3166.tab, and lang/data/times.toml's cities and zone words."""
    places: dict[str, str] = {}
    by_country: dict[str, list[str]] = {}
    for zone, country in zone_countries(directory).items():
        places[zone.rsplit("/", 1)[-1].replace("_", " ").casefold()] = zone
        by_country.setdefault(country, []).append(zone)
    names = Path(directory) / "iso3166.tab"
    if names.exists():
        for line in names.read_text(encoding="utf-8").splitlines():
            code, _, name = line.partition("\t")
            if name and not line.startswith("#") and len(by_country.get(code, ())) == 1:
                places.setdefault(name.strip().casefold(), by_country[code][0])
    for table in ("zone_cities", "zones"):
        places.update({k.casefold(): v for k, v in data.table("times")[table].items()})
    return {_folded(k): v for k, v in places.items()}


def _folded(name: str) -> str:
    """A place's name lower-cased, its accents dropped: "Bogotá" and "Bogota" are one place."""
    decomposed = unicodedata.normalize("NFKD", " ".join(name.split()).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def zone_for_place(name: str, directory: str | None = None) -> str | None:
    """The IANA zone a place name ("Tokyo", "new york", "India", "Bogotá") is in, or None."""
    try:
        table = _places(directory or zoneinfo_dir())
    except FileNotFoundError:
        return None
    return table.get(_folded(name))


_CAPITALISED_RUN_RE = re.compile(r"[A-Z][^\W\d_]*(?:[ \t]+[A-Z][^\W\d_]*)*")


def zones_named(text: str, directory: str | None = None) -> set[str]:
    """The zones of the places `text` names ("New York JFK -> London Heathrow" names New York's
    and London's): each run of capitalised words, longest place first."""
    found: set[str] = set()
    for run in _CAPITALISED_RUN_RE.finditer(text):
        words = run.group(0).split()
        first = 0
        while first < len(words):
            for size in range(min(3, len(words) - first), 0, -1):
                zone = zone_for_place(" ".join(words[first : first + size]), directory)
                if zone:
                    found.add(zone)
                    first += size - 1
                    break
            first += 1
    return found


@functools.cache
def zone_name_re() -> re.Pattern[str]:
    """An IANA zone's name as code writes it into a reply ("Europe/London"): its area is one of
    the zone database's ("Europe", "America", ...)."""
    try:
        areas = {zone.split("/")[0] for zone in zone_countries(zoneinfo_dir())}
    except FileNotFoundError:
        areas = set()
    areas |= {"Etc"}
    alternation = "|".join(sorted(map(re.escape, areas)))
    return re.compile(rf"\b(?:{alternation})(?:/[A-Za-z][\w+\-]*)+")
