import os

DEFAULT_DB = "sqlite:///local.db"


def env(name, default=None):
    return os.environ.get("SHOP_" + name, default)


def database_url():
    return env("DATABASE_URL", DEFAULT_DB)


def secret_key():
    return env("SECRET", "dev-secret")


def debug():
    return env("DEBUG", "0") == "1"
