"""Word knowledge the name finder leans on: given names of many countries, US surnames, word
frequencies in the five languages Veil reads, and the words that are never names (times,
roles, pronouns).

A name in a chat is often lower-case ("meet priya") or foreign ("Oluwaseun"), and the small
spaCy model misses both; what tells "priya" from "pleasure" is that one is a known given name or
a rare word, the other a common one. The lists ship inside installed packages: no download.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS as EN_STOP
from wordfreq import zipf_frequency

from privacy.errors import PrivacyError

logger = logging.getLogger(__name__)

LANGUAGES = ("en", "de", "fr", "es", "pt")

TIME_WORDS = frozenset(
    """today tonight tomorrow tmrw tmr yesterday now later soon morning afternoon evening night
    noon midnight weekend week month year day days weeks monday tuesday wednesday thursday friday
    saturday sunday mon tue tues wed thu thur thurs fri sat sun january february march april may
    june july august september october november december jan feb mar apr jun jul aug sep sept oct
    nov dec am pm eod eow asap christmas easter heute morgen gestern abend nacht woche montag
    dienstag mittwoch donnerstag freitag samstag sonntag januar februar märz mai juni juli
    oktober dezember aujourd'hui demain hier soir matin semaine lundi mardi mercredi jeudi
    vendredi samedi dimanche janvier février mars avril juin juillet août octobre novembre
    décembre hoy mañana ayer tarde noche semana lunes martes miércoles jueves viernes sábado
    domingo enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre
    diciembre hoje amanhã ontem noite segunda terça quarta quinta sexta sábado domingo janeiro
    fevereiro março maio junho julho setembro outubro dezembro""".split()
)

ROLES = frozenset(
    """cfo ceo cto coo cmo vp boss manager lead dentist doctor doc lawyer attorney accountant
    landlord landlady colleague coworker co-worker friend buddy pal bestie sister brother sis bro
    wife husband partner spouse assistant therapist coach teacher tutor neighbor neighbour intern
    recruiter client customer contractor plumber electrician mechanic realtor agent trainer
    nanny babysitter roommate flatmate kid cousin aunt auntie uncle mother father mom mum dad mommy
    mummy daddy son daughter niece nephew grandma grandpa granny nana fiancé fiancée fiance
    fiancee girlfriend boyfriend gf bf mentor supervisor director founder cofounder co-founder
    investor advisor adviser vet physio physiotherapist hairdresser barber chef secretary pa
    editor designer engineer developer nurse pharmacist optician surgeon professor prof team
    everyone everybody all guys folks kids baby babe honey sweetie darling love dear team
    kollege kollegin zahnarzt zahnärztin arzt ärztin mama papa oma opa schwester bruder frau
    mann freund freundin nachbar nachbarin collègue patron médecin maman sœur frère ami amie
    copain copine voisin jefe jefa colega médico mamá papá hermana hermano amigo amiga vecino
    chefe mãe pai irmã irmão amiga vizinho""".split()
)

# Words that start or end a greeting, close a message, or address someone: never a name.
SALUTATIONS = frozenset(
    """hi hey hello hiya yo dear greetings thanks thank thx ty cheers best regards love xo xoxo
    bye hallo hej liebe lieber moin servus danke grüße gruß lg vg mfg bonjour salut coucou cher
    chère merci bises bisous cordialement amitiés hola querido querida estimado estimada gracias
    saludos besos abrazos olá ola oi obrigado obrigada abraços beijos atenciosamente ciao
    sincerely kind warm morning evening night all""".split()
)

# Never a name, whatever the case: pronouns, articles, prepositions, times, roles, greetings.
HARD_NOT_NAMES = (
    TIME_WORDS
    | ROLES
    | SALUTATIONS
    | frozenset(
        """the a an and or but of to in on at for with from by as is are was be my our your his
        her their its this that these those there here what who whom which when where why how
        not no yes der die das den dem des ein eine und oder mit von zu im am le la les un une
        et ou de du des au aux avec el los las y o con del al lo um uma os as e com do da dos
        das ao na no em para por""".split()
    )
)

# Words that are not names when written in lower case ("will", "may" can be names capitalised).
NOT_NAMES = (
    HARD_NOT_NAMES
    # English stop words only: importing spaCy's French module alone takes five seconds, and
    # common words of the other languages are caught by their frequency instead.
    | frozenset(w.casefold() for w in EN_STOP)
    | frozenset(
        """me you i we us him her them it ich du wir mich dich moi toi nous vous yo tú tu eu você
        mum mom ok okay yes no yeah yep nope sure please lol haha omg btw fyi re fwd pls plz
        guys y'all there here this that what call text email mail meet ping ask tell remind
        invite message dm send see lunch dinner breakfast brunch coffee drinks meeting call
        sync standup zoom teams slack whatsapp signal telegram imessage phone office home work
        back soon again everyone someone anyone nobody q1 q2 q3 q4 ai ok""".split()
    )
)

# Words that open the unit part of an address ("Apt. 4"): never the end of a name.
UNIT_WORDS = frozenset({"apt", "apartment", "suite", "ste", "unit", "flat"})

# Words that make a capitalised phrase an organisation or a venue, which stays visible.
ORG_WORDS = frozenset(
    """inc inc. corp corp. corporation co co. ltd ltd. llc llp plc gmbh ag sa sas sarl bv nv
    group holdings company coffee cafe café bar restaurant bistro kitchen grill pizzeria bakery
    hotel inn bank university college school academy institute hospital clinic labs lab
    studio studios partners associates consulting systems technologies tech solutions
    services foundation trust fund capital ventures media agency network airlines airport
    station museum gallery theatre theater cinema church club gym center centre market store
    shop mall park stadium arena orchestra band choir ensemble research investments consulting
    transit movers analytics software insurance logistics realty properties pharma
    pharmaceuticals motors industries enterprises apartments salon spa cinemas cineplex
    dentistry dental pharmacy lofts residences plaza""".split()
)


@functools.cache
def given_names() -> frozenset[str]:
    """Given names of many countries (gender-guesser's list), lower-cased, minus common words."""
    spec = importlib.util.find_spec("gender_guesser")
    if spec is None or not spec.submodule_search_locations:
        raise PrivacyError("package gender-guesser is missing: pip install gender-guesser")
    path = Path(spec.submodule_search_locations[0]) / "data" / "nam_dict.txt"
    names: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            # data lines: a gender code, spaces, the name (with "+" for a space), then flags
            if line.startswith("#") or len(line) < 30 or line[0] not in "MF?1=":
                continue
            name = line[3:29].strip().replace("+", " ")
            if name and " " not in name:
                names.add(name.casefold())
    return frozenset(names - HARD_NOT_NAMES)


@functools.cache
def surnames() -> frozenset[str]:
    """The US Census surnames (88,799, from the `names` package), lower-cased.

    Many are also words ("Park", "White", "Long"): a surname only counts where the grammar
    already points at people (a list beside a name, the subject of "were").
    """
    spec = importlib.util.find_spec("names")
    if spec is None or not spec.submodule_search_locations:
        raise PrivacyError("package names is missing: pip install names")
    path = Path(spec.submodule_search_locations[0]) / "dist.all.last"
    with path.open(encoding="ascii") as handle:
        return frozenset(line.split()[0].casefold() for line in handle if line.strip())


def is_surname(word: str) -> bool:
    """A known surname (case-insensitive)."""
    return word.casefold() in surnames()


# wordfreq's "small" lists hold the words of Zipf 3.0 and above: 3 MB a language where "best"
# takes 30 to 80 MB. English keeps its full list (thresholds down to 1.5 read it); the other
# languages only decide "common there" (3.0 and up), and a rarer foreign word reads as unknown,
# which errs towards redacting.
_WORDLISTS = {"en": "best"}
# Per-word caches hold what users typed: bounded, so a server that reads for months stays flat.
WORD_CACHE_SIZE = 1 << 16


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def zipf(word: str, language: str = "en") -> float:
    """How common a word is (Zipf scale: 7 for "the", about 3 for a rare word, 0 unknown)."""
    return zipf_frequency(word, language, wordlist=_WORDLISTS.get(language, "small"))


def max_zipf(word: str) -> float:
    """How common the word is in the most common of Veil's languages."""
    return max(zipf(word, lang) for lang in LANGUAGES)


def is_given_name(word: str) -> bool:
    """A known given name of some country (case-insensitive)."""
    return word.casefold() in given_names()


def is_common_word(word: str, threshold: float = 4.0) -> bool:
    """An everyday English word, which "will", "mark" and "rose" are and "priya" is not."""
    return zipf(word.casefold()) >= threshold


def is_everyday_word(value: str) -> bool:
    """A one-word name that is also an everyday word ("Will", "Mark"): match it as written."""
    low = value.strip().casefold()
    return len(low.split()) == 1 and (low in NOT_NAMES or zipf(low) >= 4.0)


def foreign_word(word: str) -> bool:
    """An everyday word of another language Veil reads that is rare in English ("claro")."""
    low = word.casefold()
    foreign = max(zipf(low, lang) for lang in LANGUAGES[1:])
    return foreign >= 4.0 and zipf(low) < foreign - 1.0


def is_compound_brand(word: str) -> bool:
    """Two everyday English words run together, rare as a whole ("Hellowallet", "Cityscan").

    Brand names are built this way; names people carry are not (or, like "Newman", are
    common enough as a whole to fail the rarity test).
    """
    low = word.casefold()
    if not low.isalpha() or len(low) < 7 or zipf(low) >= 1.5 or is_given_name(low):
        return False
    return any(zipf(low[:cut]) >= 3.5 and zipf(low[cut:]) >= 3.5 for cut in range(3, len(low) - 2))
