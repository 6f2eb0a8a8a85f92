import config

print("db:", config.database_url())
print("debug:", config.debug())
