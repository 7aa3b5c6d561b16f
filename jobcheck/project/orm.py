"""ORM model classes by name: the roots whose subclasses are models.

Kept apart from the Django recognizer (``jobcheck/extract/django.py``, which re-exports
both names) so that the project model can ask "is this a model?" without importing
libcst: a run that reads every fact from the cache parses nothing.
"""

from __future__ import annotations

# Classes whose subclasses are ORM models. Project-wide inheritance is resolved later.
MODEL_ROOTS = frozenset(
    {
        "django.db.models.Model",
        "django.db.models.base.Model",
        "django.contrib.auth.models.AbstractUser",
        "django.contrib.auth.models.AbstractBaseUser",
        "django.contrib.auth.models.User",
        "django.contrib.auth.base_user.AbstractBaseUser",
        "sqlalchemy.orm.DeclarativeBase",
        "sqlalchemy.orm.decl_api.DeclarativeBase",
        "sqlmodel.SQLModel",
    }
)


def is_model_root(base: str) -> bool:
    """A base class that makes its subclasses ORM models."""
    if base in MODEL_ROOTS:
        return True
    return base.endswith((".models.Model", "db.Model"))
