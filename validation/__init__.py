"""Validation: each method's guarantees as Monte-Carlo checks, and the report writer."""
from .registry import METHODS, REGISTRY, CheckResult, Criterion, Profile, check, load_checks, run_check

__all__ = ["METHODS", "REGISTRY", "CheckResult", "Criterion", "Profile", "check", "load_checks", "run_check"]
