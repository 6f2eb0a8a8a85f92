USERS = {
    1: {"name": "alice", "admin": True},
    2: {"name": "bob", "admin": False},
}


def get_user(user_id):
    return USERS.get(user_id)


def all_ids():
    return sorted(USERS)
