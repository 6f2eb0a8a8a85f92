import api
from db import get_user, all_ids

for uid in all_ids() + [3]:
    role = "admin" if api.is_admin(uid) else "user"
    print(uid, api.user_name(uid), role, get_user(uid) is not None)
