import db


def user_name(user_id):
    user = db.get_user(user_id)
    if user is None:
        return "unknown"
    return user["name"]


def is_admin(user_id):
    user = db.get_user(user_id)
    return bool(user and user["admin"])
